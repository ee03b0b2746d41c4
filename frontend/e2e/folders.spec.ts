import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';

/** storeFolder writes n daily exports of the same columns, one per store, and a note that is not data. */
function storeFolder(n: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'loupe-e2e-folder-')), 'stores');
  mkdirSync(dir);
  for (let i = 0; i < n; i++) {
    const rows = Array.from({ length: 20 }, (_, r) => `${i * 100 + r},store ${i},${(i * 31 + r * 17) % 100}.5,2024-01-${String(1 + (r % 28)).padStart(2, '0')}`);
    writeFileSync(join(dir, `store_${String(i).padStart(2, '0')}.csv`), `order_id,store,amount,day\n${rows.join('\n')}\n`);
  }
  writeFileSync(join(dir, 'README.md'), 'Daily exports, one file per store.\n');
  return dir;
}

test.describe('folders', () => {
  test('a folder opens as one dataset of all its files, or as one per file', async ({ page, backend }) => {
    const dir = storeFolder(6);
    await page.goto(backend.url);
    await openByPath(page, dir);

    const dialog = page.getByTestId('folder-dialog');
    await expect(dialog.getByRole('heading')).toHaveText('Open the folder stores');
    await expect(dialog).toContainText('It holds 6 data files (and 1 other entry, left out)');
    await expect(dialog.getByRole('radio', { name: /One dataset per file/ })).toBeChecked();
    await dialog.getByRole('radio', { name: /One dataset of all files/ }).check();
    await dialog.getByRole('textbox', { name: 'Dataset name' }).fill('all_stores');
    await shot(page, 'folder-choice');
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(dialog).toBeHidden();

    const all = page.getByTestId('dataset').filter({ hasText: 'all_stores' });
    await expect(all).toContainText('120 rows');
    await all.click();
    await expect(page.getByTestId('grid-count')).toContainText('120 rows');
    await expect(page.getByRole('columnheader', { name: /source_file/ })).toBeVisible();
    await shot(page, 'folder-as-one');

    // The same folder again, one dataset per file.
    await openByPath(page, dir);
    await expect(dialog.getByRole('heading')).toHaveText('Open the folder stores');
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByTestId('dataset')).toHaveCount(7);
    await expect(page.getByTestId('dataset').filter({ hasText: 'store_05' })).toContainText('20 rows');
    await expect(page.getByText('Loaded 6 tables')).toBeVisible();
  });

  test('a folder with no data file says why and what to do', async ({ page, backend }) => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-e2e-empty-'));
    writeFileSync(join(dir, 'notes.md'), 'nothing to load\n');
    await page.goto(backend.url);
    await openByPath(page, dir);
    const dialog = page.getByTestId('folder-dialog');
    await expect(dialog.getByRole('heading')).toContainText('Cannot open');
    await expect(dialog).toContainText('the folder holds no data file');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('dataset')).toHaveCount(0);
  });
});
