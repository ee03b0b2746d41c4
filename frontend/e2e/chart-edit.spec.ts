// Changing an answer's chart by hand: its type from the editor, kept with
// the answer across a reload and drawn in the report; a spec that would
// fetch from an address is refused with why, and the chart stays as it was.
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';
import { FIXTURES } from './paths';
import { agencies } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');

test.use({ script: agencies });

test('edit the answer’s chart, reload, still edited, and the report draws the edit', async ({ page, backend }) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(backend.url);
  await openByPath(page, CSV);
  await expect(page.getByTestId('dataset')).toContainText('service_requests');
  const box = page.getByRole('textbox', { name: 'Question' });
  await box.fill('Which agency gets the most requests?');
  await box.press('Enter');
  const turn = page.getByTestId('turn').last();
  await expect(turn).toHaveAttribute('data-status', 'done');
  const final = turn.getByTestId('final-result');
  await expect(final.getByTestId('chart').locator('svg .mark-rect path').first()).toBeVisible();

  // By keyboard: the Edit chart button opens the editor with the focus on its type.
  const edit = final.getByRole('button', { name: 'Edit chart' });
  await edit.focus();
  await page.keyboard.press('Enter');
  const editor = final.getByRole('region', { name: 'Edit the chart' });
  const type = editor.getByRole('combobox', { name: 'Type' });
  await expect(type).toBeFocused();
  await expect(editor.getByRole('combobox', { name: 'X', exact: true })).toHaveValue('agency');

  await type.selectOption('point');
  await editor.getByRole('combobox', { name: 'X', exact: true }).selectOption('requests');
  await editor.getByRole('combobox', { name: 'Y', exact: true }).selectOption('agency');
  for (const d of await page.getByRole('button', { name: 'Dismiss' }).all()) await d.click();
  await final.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shot(page, 'chart-editor');

  // A spec that would fetch is refused by Go, with why; nothing changes.
  await editor.getByText('Advanced: the Vega-Lite spec').click();
  await editor
    .getByRole('textbox', { name: 'Vega-Lite spec (JSON)' })
    .fill('{"mark":"bar","data":{"url":"http://127.0.0.1:9/steal.csv"},"encoding":{"x":{"field":"agency","type":"nominal"}}}');
  await editor.getByRole('button', { name: 'Apply the spec' }).click();
  await expect(editor.getByRole('alert')).toContainText('fetch from outside Loupe');
  await expect(final.getByTestId('chart').locator('svg .mark-rect path').first()).toBeVisible();

  await editor.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(editor).toBeHidden();
  await expect(edit).toBeFocused();
  await expect(final.getByTestId('chart').locator('svg .mark-symbol path').first()).toBeVisible();
  await expect(final.getByTestId('chart').locator('svg .mark-rect path')).toHaveCount(0);
  await expect(final.getByTestId('chart-edited')).toHaveText('Edited by you');

  // After a reload the answer comes back from the backend with the edited chart.
  await page.reload();
  await page.getByTestId('chat').filter({ hasText: 'Which agency gets the most requests?' }).click();
  const restored = page.getByTestId('turn').last().getByTestId('final-result');
  await expect(restored.getByTestId('chart').locator('svg .mark-symbol path').first()).toBeVisible();
  await expect(restored.getByTestId('chart-edited')).toBeVisible();
  await shot(page, 'chart-edited');

  // The report draws the chart as edited.
  await page.getByTestId('turn').last().getByRole('button', { name: /Generate report/ }).click();
  const img = page.getByTestId('report').locator('img.report__chart');
  await expect(img).toBeVisible();
  const src = (await img.getAttribute('src')) ?? '';
  const svg = src.startsWith('data:image/svg+xml;base64,') ? Buffer.from(src.split(',')[1]!, 'base64').toString('utf8') : src;
  expect(svg).toContain('mark-symbol');
  expect(svg).not.toContain('mark-rect');

  // Back to the chart drawn with the answer.
  await page.getByTestId('chat').filter({ hasText: 'Which agency gets the most requests?' }).click();
  const again = page.getByTestId('turn').last().getByTestId('final-result');
  await again.getByRole('button', { name: 'Edit chart' }).click();
  await again.getByRole('button', { name: 'Back to the chart drawn with the answer' }).click();
  await expect(again.getByTestId('chart').locator('svg .mark-rect path').first()).toBeVisible();
  await expect(again.getByTestId('chart-edited')).toHaveCount(0);
});
