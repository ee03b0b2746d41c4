import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test, type Script } from './backend';
import { REPO, SCREENSHOTS } from './paths';

const byRegion = 'SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC';
const byChannel = 'SELECT channel, count(*) AS sales FROM sales GROUP BY channel ORDER BY channel';

/** One question with a chart and two queries, its report, then the paragraph a refresh asks for. */
const conversation: Script = {
  turns: [
    { tool_calls: [{ name: 'run_sql', args: { sql: byRegion, purpose: 'sales by region' } }] },
    {
      tool_calls: [
        {
          name: 'create_chart',
          args: {
            title: 'Sales by region',
            sql: byRegion,
            spec: { mark: 'bar', encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'total', type: 'quantitative' } } },
          },
        },
      ],
    },
    { tool_calls: [{ name: 'run_sql', args: { sql: byChannel, purpose: 'sales by channel' } }] },
    { content: 'North sold the most, 17 in total.\n\nFindings:\n- North leads with 17 [q1, c1]\n- The web made 2 sales [q2]' },
    { content: '# North leads sales\n\n## Executive summary\n\nNorth sold the most [q1].\n\n## Findings\n\n{{chart:c1}}\n\n{{table:q1}}\n\n{{table:q2}}\n' },
    { content: 'North rose from 17 to 19 and South from 12 to 30; the channel query fails now, so the finding about the web no longer holds.' },
  ],
};

test.describe('a report refreshed after its file changed', () => {
  test.use({ script: conversation });

  test('the new version says what changed, names the failing query, and is listed and compared', async ({ page, backend }) => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-refresh-'));
    try {
      const csv = join(dir, 'sales.csv');
      writeFileSync(csv, 'region,amount,channel\nnorth,10,web\nsouth,12,shop\nnorth,7,web\n');
      await page.goto(backend.url);
      await openByPath(page, csv);
      await expect(page.getByTestId('dataset')).toContainText('sales');
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('Which region sells most?');
      await box.press('Enter');
      const turn = page.getByTestId('turn').first();
      await expect(turn).toHaveAttribute('data-status', 'done');
      await turn.getByRole('button', { name: /Generate report/ }).click();
      const report = page.getByTestId('report');
      await expect(report.getByRole('heading', { name: 'North leads sales' })).toBeVisible();
      await expect(report.locator('table').first()).toContainText('17');

      // The file changes on disk: new amounts, and the channel column is gone.
      writeFileSync(csv, 'region,amount\nnorth,10\nsouth,30\nnorth,9\n');
      await page.getByRole('button', { name: 'Refresh on current data' }).click();
      await expect(report.getByRole('heading', { name: 'What changed' })).toBeVisible();
      await expect(report).toContainText('North rose from 17 to 19 and South from 12 to 30');
      await expect(report).toContainText('q1, north, total: 17 → 19');
      await expect(report).toContainText('q1, south, total: 12 → 30');
      await expect(report.getByRole('listitem').filter({ hasText: /^q2: Binder Error: Referenced column "channel" not found/ })).toBeVisible();
      await expect(report).toContainText('“North leads with 17” — 17 is no longer in the results of q1, c1.');
      await expect(report).toContainText('Loaded again because the file changed: sales.');
      // The tables and the chart hold the new data.
      await expect(report.locator('table').first()).toContainText('30');
      await expect(report.locator('img.report__chart')).toHaveCount(1);
      await expect(page.getByText('Refreshed the report on the current data')).toBeHidden({ timeout: 10_000 });
      await shot(page, 'report-refreshed');
      mkdirSync(join(REPO, 'docs', 'screens'), { recursive: true });
      copyFileSync(join(SCREENSHOTS, 'report-refreshed.png'), join(REPO, 'docs', 'screens', 'report-refreshed.png'));

      // Both versions are kept; the two are compared.
      const versions = page.getByTestId('report-versions');
      await versions.getByText('2 versions').click();
      await expect(versions).toContainText('refresh of 1: 2 numbers moved, 1 query fails, 2 findings no longer hold');
      await versions.getByRole('button', { name: 'Compare versions 1 and 2' }).click();
      const diff = page.getByTestId('report-diff');
      await expect(diff.getByRole('heading', { name: 'Version 1 → version 2' })).toBeVisible();
      await expect(diff).toContainText('q1, north, total: 17 → 19');
      await expect(diff.getByLabel('Lines that differ')).toContainText('+ | north | 19 |');
      await shot(page, 'report-versions-diff');
      copyFileSync(join(SCREENSHOTS, 'report-versions-diff.png'), join(REPO, 'docs', 'screens', 'report-versions-diff.png'));
      await diff.getByRole('button', { name: 'Close' }).click();
      await expect(diff).toBeHidden();
      // The first version is kept as it was.
      await versions.getByRole('button', { name: 'Show version 1' }).click();
      const first = page.getByTestId('report-version');
      await expect(first.getByRole('cell', { name: '17' })).toBeVisible();
      await expect(first).not.toContainText('What changed');
      await first.getByRole('button', { name: 'Close' }).click();
      await expect(first).toBeHidden();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
