// Sorting, filtering and column summaries in a result grid, by keyboard,
// against the real backend: a dataset's preview holds 1,000 of its 2,059
// rows, and sorting it sorts the whole table (the largest amount is not
// among the rows held), a filter counts over the whole table, and the
// column's summary says it covers the rows held.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';

function ordersFile(n: number): string {
  const lines = ['id,region,amount'];
  const regions = ['West', 'East', 'North', 'South'];
  for (let i = 1; i <= n; i++) lines.push(`${i},${regions[i % 4]},${i % 10 === 0 ? '' : `${i}.5`}`);
  const path = join(mkdtempSync(join(tmpdir(), 'loupe-e2e-grid-')), 'orders.csv');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

test('sort and filter a cut preview over the whole table, by keyboard', async ({ page, backend }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(backend.url);
  await openByPath(page, ordersFile(2059));
  const item = page.getByTestId('dataset').filter({ hasText: 'orders' });
  await expect(item).toContainText('2,059 rows');
  await item.click();
  const count = page.getByTestId('grid-count');
  await expect(count).toContainText('2,059 rows · first 1,000 kept');

  const amountHeader = page.getByRole('columnheader', { name: /^amount/ });
  await expect(amountHeader).toHaveAttribute('aria-sort', 'none');
  const sortButton = amountHeader.getByRole('button', { name: /^amount, not sorted/ });
  await sortButton.focus();
  await page.keyboard.press('Enter');
  await expect(amountHeader).toHaveAttribute('aria-sort', 'ascending');
  await page.keyboard.press('Enter');
  await expect(amountHeader).toHaveAttribute('aria-sort', 'descending');
  const view = page.getByTestId('grid-view');
  await expect(view).toContainText('Sorted by amount, descending — over all 2,059 rows');
  // Row 2,059 of the table is past the 1,000 held: a sort of the held rows would start at 999.5.
  const firstRow = page.getByRole('row').nth(1);
  await expect(firstRow.getByRole('gridcell').nth(0)).toHaveText('2059');
  await expect(firstRow.getByRole('gridcell').nth(2)).toHaveText('2,059.5');

  // The column's panel: Tab from the sort button to the funnel, Enter.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'amount: summary and filter' })).toBeFocused();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('dialog', { name: 'amount: summary and filter' });
  await expect(panel.getByTestId('column-summary')).toContainText('Max2,059.5');
  await expect(panel).toContainText('Over the 1,000 rows held, not all 2,059 the query produced.');
  await expect(panel.getByRole('textbox', { name: 'Contains' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.type('2000');
  await page.keyboard.press('Enter');
  // 2000.5 … 2059.5 without the NULLs of every tenth row: 54 rows of the table's 2,059.
  await expect(count).toContainText('54 rows of 2,059');
  await expect(view).toContainText('Filtered: amount ≥ 2000');
  for (const d of await page.getByRole('button', { name: 'Dismiss' }).all()) await d.click();
  await shot(page, 'grid-sort-filter');

  // Text filters too, any case, on top of the range.
  await page.getByRole('textbox', { name: 'Contains' }).fill('');
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(page.getByRole('button', { name: 'amount: summary and filter (filtered)' })).toBeFocused();
  await page.getByRole('button', { name: 'region: summary and filter' }).click();
  await page.getByRole('dialog', { name: 'region: summary and filter' }).getByRole('textbox', { name: 'Contains' }).fill('wEST');
  await page.keyboard.press('Enter');
  await expect(count).toContainText('12 rows of 2,059');
  for (const cell of await page.getByRole('row').locator('[role=gridcell]:nth-of-type(3)').allTextContents()) expect(cell).toBe('West');

  await page.getByRole('button', { name: /Clear sort and filters/ }).click();
  await expect(count).toContainText('2,059 rows · first 1,000 kept');
  await expect(amountHeader).toHaveAttribute('aria-sort', 'none');
});
