// Notes on a dataset end to end, in web mode against `loupe serve`: write
// the table's note and two columns' from the sidebar's dataset menu, see
// the note in the dataset view, and read it back from the backend.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openByPath, test } from './backend';
import { FIXTURES, REPO } from './paths';

const SHOTS = join(REPO, '.cache', 'shots');

test('notes on a dataset are written in a dialog, kept by the backend and shown in the dataset view', async ({ page, backend }) => {
  await page.goto(backend.url);
  await openByPath(page, join(FIXTURES, 'service_requests.csv'));
  const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
  await expect(item).toContainText('1,000 rows');
  await item.click();

  await item.getByRole('button', { name: 'Actions for service_requests' }).click();
  await page.getByRole('menuitem', { name: 'Notes…' }).click();
  const dialog = page.getByTestId('notes-dialog');
  await expect(dialog.getByRole('heading', { name: 'Notes on service_requests' })).toBeVisible();
  await expect(dialog.getByRole('group', { name: 'Column notes' })).toContainText('days_to_close');
  await dialog.getByRole('textbox', { name: 'Table note' }).fill('311 service requests in New York City, one row per request, from the 2024 open-data export.');
  await dialog.getByRole('textbox', { name: 'Note on agency' }).fill('City agency that handled the request (DOF = Finance, HPD = Housing)');
  await dialog.getByRole('textbox', { name: 'Note on days_to_close' }).fill('Days from created_date to closed_date; empty while open');
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'notes.png') });

  await dialog.getByRole('button', { name: 'Save notes' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('dataset-note')).toHaveText(/^311 service requests in New York City/);
  await page.screenshot({ path: join(SHOTS, 'notes-view.png') });

  // The list holds the dataset's note; its columns' notes come with the whole dataset.
  const ds = await backend.call<{ name: string; note?: string }[]>('ListDatasets');
  expect(ds.find((d) => d.name === 'service_requests')?.note).toContain('open-data export');
  const sr = await backend.call<{ name: string; note?: string; columns: { name: string; note?: string }[] }>('GetDataset', 'service_requests');
  expect(sr.note).toContain('open-data export');
  expect(sr?.columns.find((c) => c.name === 'agency')?.note).toContain('DOF = Finance');
  expect(sr?.columns.find((c) => c.name === 'borough')?.note ?? '').toBe('');
});
