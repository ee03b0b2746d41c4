// Private columns end to end, in web mode against `loupe serve`: Loupe
// proposes a dataset's email and name columns, the user turns one off and
// another on in the dataset view's dialog, and the backend keeps both.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, test } from './backend';

test('private columns are proposed, changed in the dataset view and kept by the backend', async ({ page, backend }) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-private-'));
  const file = join(dir, 'members.csv');
  writeFileSync(file, 'id,email,full_name,city,visits\n1,ann@example.org,Ann Smith,Oslo,3\n2,bob@example.net,Bob Jones,Lima,5\n');
  await page.goto(backend.url);
  await openByPath(page, file);
  const item = page.getByTestId('dataset').filter({ hasText: 'members' });
  await expect(item).toContainText('2 rows');
  await item.click();

  await page.getByRole('button', { name: 'Private…' }).click();
  const dialog = page.getByTestId('private-dialog');
  await expect(dialog.getByRole('heading', { name: 'Private columns of members' })).toBeVisible();
  await expect(dialog).toContainText('Loupe proposes 2 columns');
  await expect(dialog.getByRole('checkbox', { name: 'Private: email' })).toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: 'Private: full_name' })).toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: 'Private: city' })).not.toBeChecked();

  await dialog.getByRole('checkbox', { name: 'Private: city' }).click(); // checked once the backend has it
  await expect(dialog.getByRole('checkbox', { name: 'Private: city' })).toBeChecked();
  await dialog.getByRole('checkbox', { name: 'Private: full_name' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'Private: full_name' })).not.toBeChecked();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  const cols = await backend.call<{ column: string; private: boolean; decided: boolean; kind?: string }[]>('PrivateColumns', 'members');
  const by = Object.fromEntries(cols.map((c) => [c.column, c]));
  expect(by['email']).toMatchObject({ private: true, decided: false, kind: 'email' });
  expect(by['full_name']).toMatchObject({ private: false, decided: true });
  expect(by['city']).toMatchObject({ private: true, decided: true });
  expect(by['visits']).toMatchObject({ private: false, decided: false });
});
