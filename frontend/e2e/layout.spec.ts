// Layout at the window's smallest usual width, and the answer's inline result
// with its chart's data table: screenshots into e2e/screenshots/layout-*.png.
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';
import { FIXTURES } from './paths';
import { agencies } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');

test.describe('layout', () => {
  test.use({ script: agencies, viewport: { width: 1024, height: 720 } });

  test('at 1024 px a dataset keeps its whole title; an answer shows its chart, table and data table inline', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
    await item.click();
    const title = page.getByRole('heading', { name: 'service_requests', level: 1 });
    await expect(title).toBeVisible();
    // Not cut to "service_requ…": the metadata beside it gives way first.
    expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await shot(page, 'layout-1024-dataset');

    await page.getByRole('button', { name: 'New conversation' }).click();
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');
    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    // The result is under the summary, not only in a folded step.
    const final = turn.getByTestId('final-result');
    await expect(final.getByRole('figure', { name: 'Requests by agency' })).toBeVisible();
    await expect(final.getByRole('gridcell', { name: '490', exact: true })).toBeVisible();
    await expect(turn.getByTestId('chart')).toHaveCount(1);
    // Screen readers hear the chart's title, not "Vega visualization".
    await expect(final.locator('[role="graphics-document"]')).toHaveAttribute('aria-label', 'Requests by agency');
    // A tooltip on a bar.
    await final.locator('svg .mark-rect path').first().hover();
    await expect(page.locator('#vg-tooltip-element')).toContainText('490');
    await shot(page, 'layout-chart-tooltip');
    await final.getByRole('button', { name: 'Data table' }).click();
    const table = final.getByRole('table', { name: 'Requests by agency' });
    await expect(table.getByRole('row')).toHaveCount(9);
    await table.scrollIntoViewIfNeeded();
    await shot(page, 'layout-chart-data-table');
  });
});
