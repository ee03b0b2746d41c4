// Exports that hold what the user sees: a dataset's Export CSV writes the
// whole table (not its 1,000-row preview) to a file named after it, and an
// export of held rows that are fewer than the query produced says so.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';

/** A CSV of n orders (id, amount), written for the test. */
function ordersFile(n: number): string {
  const lines = ['id,amount'];
  for (let i = 1; i <= n; i++) lines.push(`${i},${i}.5`);
  const path = join(mkdtempSync(join(tmpdir(), 'loupe-e2e-orders-')), 'orders.csv');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

test('a 2,059-row dataset exports all its rows as orders.csv', async ({ page, backend }) => {
  await page.goto(backend.url);
  await openByPath(page, ordersFile(2059));
  const item = page.getByTestId('dataset').filter({ hasText: 'orders' });
  await expect(item).toContainText('2,059 rows');
  await item.click();
  await expect(page.getByTestId('grid-count')).toContainText('2,059 rows · first 1,000 kept');
  const exportButton = page.getByRole('button', { name: 'Export CSV', exact: true });
  await expect(exportButton).toHaveAttribute('title', 'Export all 2,059 rows as CSV');
  await exportButton.click();
  await expect(page.getByText(/Saved 2,059 rows to .*orders\.csv/)).toBeVisible();
  await shot(page, 'export-dataset');
  expect(backend.savedFiles()).toContain('orders.csv');
  const lines = readFileSync(join(backend.saveDir, 'orders.csv'), 'utf8').trim().split('\n');
  expect(lines).toHaveLength(2060);
  expect(lines[0]).toBe('id,amount');
  expect(lines[2059]).toBe('2059,2059.5');
});

test('an export of fewer rows than the query produced says how many before saving', async ({ page, backend }) => {
  await page.goto(backend.url);
  await openByPath(page, ordersFile(2059));
  await expect(page.getByTestId('dataset').filter({ hasText: 'orders' })).toBeVisible();
  await page.getByRole('button', { name: 'SQL console' }).click();
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  // One row past the console's million: it keeps the first million only.
  await page.keyboard.type('SELECT range AS i FROM range(1000001)');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('grid-count')).toContainText('1,000,001 rows · first 1,000,000 kept');
  await expect(page.getByRole('button', { name: 'Export CSV (1,000,000 of 1,000,001)' })).toBeVisible();
  await shot(page, 'export-partial');
});
