// Results read as numbers and dates: a month column shows 2024-12-01, not
// 2024-12-01 00:00:00; amounts get thousands separators and the same
// decimals down the column; ids stay as they are. Copying keeps the raw values.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';

test('months as dates, amounts formatted by type', async ({ page, backend }) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-e2e-fmt-'));
  writeFileSync(
    join(dir, 'sales.csv'),
    'order_id,day,amount\n100001,2024-12-03,55420.45\n100002,2024-12-19,30631.2\n100003,2025-01-07,1250\n',
  );
  await page.goto(backend.url);
  await openByPath(page, join(dir, 'sales.csv'));
  await expect(page.getByTestId('dataset').filter({ hasText: 'sales' })).toBeVisible();
  await page.getByRole('button', { name: 'SQL console' }).click();
  await page.getByRole('textbox', { name: 'SQL' }).click();
  await page.keyboard.type(
    "SELECT date_trunc('month', day)::TIMESTAMP AS month, sum(amount) AS revenue, count(*) AS orders, min(order_id) AS first_order_id FROM sales GROUP BY ALL ORDER BY 1",
  );
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('grid-count')).toContainText('2 rows');
  const grid = page.getByTestId('grid');
  await expect(grid.getByRole('gridcell', { name: '2024-12-01', exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: '2025-01-01', exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: '86,051.65', exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: '1,250.00', exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: '100001', exact: true })).toBeVisible();
  await shot(page, 'console-formats');
});
