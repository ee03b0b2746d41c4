// Load warnings where the user looks: the load's notice, the sidebar (not
// cut by an ellipsis) and the dataset's header; import options on reload
// (the dataset's Import options…) and on load (the path dialog).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';

function file(name: string, content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'loupe-e2e-warn-')), name);
  writeFileSync(path, content);
  return path;
}

test('a ragged file with European numbers says so in the notice, the sidebar and the header', async ({ page, backend }) => {
  await page.setViewportSize({ width: 1024, height: 720 });
  await page.goto(backend.url);
  const path = file('clients_latin1.csv', 'Kunde;Umsatz;Stadt\nMüller;1.234,75;Köln\nSchmidt;12,50\nWeber;100;Bonn\nBecker;3,10;Bonn\nKrause;7;Bonn\n');
  await openByPath(page, path);

  // The notice names the warnings and stays until dismissed.
  const notice = page.getByRole('status').filter({ hasText: 'Loaded clients_latin1 with 2 warnings' });
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('1 row had fewer fields than the header and was padded with NULL (first at line 3)');
  await expect(notice).toContainText('column Umsatz read as numbers written with a decimal comma');
  await shot(page, 'load-warnings-notice');
  await page.waitForTimeout(4500);
  await expect(notice).toBeVisible();

  // The sidebar has room for the count: not cut off.
  const count = page.getByTestId('dataset').filter({ hasText: 'clients_latin1' }).getByTestId('dataset-warning-count');
  await expect(count).toHaveText('2 warnings');
  expect(await count.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  await page.getByTestId('dataset').filter({ hasText: 'clients_latin1' }).click();
  const header = page.getByTestId('dataset-warnings');
  await expect(header).toContainText('padded with NULL');
  await expect(header).toContainText('decimal comma');
  await expect(page.getByRole('columnheader', { name: /Umsatz/ })).toContainText('double');
  await shot(page, 'load-warnings-dataset');
});

test('import options reload a file detection read wrong, and open one by path', async ({ page, backend }) => {
  await page.goto(backend.url);
  const path = file('export.csv', 'Export from ShopSys 4.2\nid|city|amount\n1|Bonn|12,5\n2|Köln|7,25\n');
  await openByPath(page, path);
  await page.getByTestId('dataset').filter({ hasText: 'export' }).click();
  // Whatever this load warned about, its notice may be dismissed.
  for (const b of await page.locator('.notices').getByRole('button', { name: 'Dismiss' }).all()) await b.click();
  await page.getByRole('button', { name: 'Import options…' }).click();
  const dialog = page.getByTestId('reload-dialog');
  await dialog.getByLabel('Delimiter', { exact: true }).selectOption('|');
  await dialog.getByLabel('Decimal separator').selectOption(',');
  await dialog.getByLabel('Skip lines').fill('1');
  await shot(page, 'import-options-dialog');
  await dialog.getByRole('button', { name: 'Reload' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Reloaded export with 1 warning')).toBeVisible();
  await expect(page.getByRole('columnheader', { name: /amount/ })).toContainText('double');
  await expect(page.getByRole('gridcell', { name: '12.50', exact: true })).toBeVisible();

  // The same options when opening by path.
  const other = file('orders_eu.txt', 'id;amount\n1;3,5\n2;4,25\n');
  await page.keyboard.press('Control+o');
  await page.getByRole('textbox', { name: 'File paths' }).fill(other);
  await page.getByText('Import options for CSV and TSV files').click();
  await page.getByLabel('Decimal separator').selectOption(',');
  await page.getByRole('button', { name: 'Open', exact: true }).click();
  await page.getByTestId('dataset').filter({ hasText: 'orders_eu' }).click();
  await expect(page.getByRole('columnheader', { name: /amount/ })).toContainText('double');
  const d = await backend.call<{ name: string; text?: { decimal: string } }>('GetDataset', 'orders_eu');
  expect(d.text?.decimal).toBe(',');
});
