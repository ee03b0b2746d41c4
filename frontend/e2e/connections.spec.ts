// A database connection end to end, in web mode against `loupe serve` and
// the fake model: add the Chinook SQLite file, test it, ask about it (the
// agent's join runs on the file), and import a query's result as a dataset.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test, type Script } from './backend';
import { REPO } from './paths';

const CHINOOK = join(REPO, 'data', 'remote', 'sqlite', 'testdata', 'Chinook_Sqlite.sqlite');
const SHOTS = join(REPO, '.cache', 'shots');

const genres = 'SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 5';

/** Query the file, then answer from what the query found. */
const askChinook: Script = {
  turns: [
    { content: 'Counting tracks per genre on the database.', tool_calls: [{ name: 'run_sql', args: { sql: genres, purpose: 'tracks per genre' } }] },
    {
      content: 'Rock has by far the most tracks, more than twice Latin, the next genre.\n\nFindings:\n- Rock has 1,297 tracks [q1]\n- Latin is second with 579 [q1]',
      chunks: 6,
    },
  ],
};

async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

test.describe('connections', () => {
  test.use({ script: askChinook });

  test('add a SQLite connection, test it, ask about it, and import a query result', async ({ page, backend }) => {
    await page.goto(backend.url);
    await expect(page.getByTestId('statusbar')).toBeVisible();
    const databases = page.getByRole('region', { name: 'Databases' });
    await databases.getByRole('button', { name: 'Connect one' }).click();

    // The dialog: a SQLite file, named from the file, tested before it is saved.
    const dialog = page.getByTestId('connection-dialog');
    await dialog.getByText('SQLite file', { exact: true }).click();
    await dialog.getByLabel('Database file').fill(join(REPO, 'data', 'remote', 'sqlite', 'testdata', 'missing.sqlite'));
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect(dialog.getByRole('alert')).toContainText('No such file');
    await dialog.getByLabel('Database file').fill(CHINOOK);
    await expect(dialog.getByLabel('Name', { exact: true })).toHaveValue('Chinook_Sqlite');
    await dialog.getByLabel('Name', { exact: true }).fill('chinook');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect(dialog.getByTestId('connection-test-ok')).toContainText(/Connected to SQLite 3\.\d+.*: 11 tables and views/);
    await snap(page, 'connection-dialog');

    // The PostgreSQL form shows the read-only role's SQL for its database.
    await dialog.getByText('PostgreSQL', { exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Database', exact: true }).fill('analytics');
    await dialog.getByText('Connect with a read-only role').click();
    await expect(dialog.getByTestId('read-only-advice')).toContainText('GRANT CONNECT ON DATABASE analytics TO loupe_ro;');
    await snap(page, 'connection-dialog-postgres');
    await dialog.getByText('SQLite file', { exact: true }).click();
    await expect(dialog.getByLabel('Database file')).toHaveValue(CHINOOK);
    await dialog.getByRole('button', { name: 'Add connection' }).click();
    await expect(dialog).toBeHidden();

    // Saved, opened on its tables.
    const conn = databases.getByTestId('connection').filter({ hasText: 'chinook' });
    await expect(conn).toContainText('SQLite · Chinook_Sqlite.sqlite');
    await expect(conn.getByTestId('connection-table').filter({ hasText: /^Track~/ })).toContainText('~3,503');
    expect(await backend.call<{ name: string }[]>('ListConnections')).toEqual([expect.objectContaining({ name: 'chinook', kind: 'sqlite' })]);

    // Notes on a table of the database: kept beside the connection, shown again.
    await conn.getByRole('button', { name: 'Notes on Invoice', exact: true }).click();
    const notes = page.getByTestId('notes-dialog');
    await notes.getByRole('textbox', { name: 'Table note' }).fill('One row per customer purchase, 2009-2013');
    await notes.getByRole('textbox', { name: 'Note on Total' }).fill('in US dollars, taxes included');
    await snap(page, 'connection-notes');
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await expect(notes).toBeHidden();
    await expect(conn.getByRole('button', { name: 'Notes on Invoice', exact: true })).toHaveAttribute('title', /One row per customer purchase/);
    const sch = await backend.call<{ tables: { name: string; note?: string; columns: { name: string; note?: string }[] }[] }>('ConnectionTables', 'chinook', false);
    const invoice = sch.tables.find((t) => t.name === 'Invoice');
    expect(invoice?.note).toBe('One row per customer purchase, 2009-2013');
    expect(invoice?.columns.find((c) => c.name === 'Total')?.note).toBe('in US dollars, taxes included');

    // Ask about it: a conversation bound to the connection; the join runs on the file.
    await conn.getByRole('button', { name: 'Ask about it' }).click();
    // The chat's own header names the database (no bar above the chat).
    await expect(page.locator('header.view-head').getByTestId('connection-chat-tag')).toHaveText(/^chinook\s*SQLite · Chinook_Sqlite\.sqlite\s*read-only$/);
    const empty = page.getByTestId('connection-ask-empty');
    await expect(empty).toContainText('What would you like to know about chinook?');
    await expect(empty).toContainText('Loupe asks chinook, a SQLite database with 11 tables (PlaylistTrack, Track, InvoiceLine and 8 more)');
    await expect(empty).not.toContainText('0 tables');
    await expect(empty.getByRole('button', { name: 'Which album has the most tracks?' })).toBeVisible();
    const box = page.getByRole('textbox', { name: 'Question' });
    await expect(box).toBeFocused();
    await snap(page, 'connection-chat-empty');
    // A suggested question goes into the box, to send or edit.
    await empty.getByRole('button', { name: 'Which album has the most tracks?' }).click();
    await expect(box).toHaveValue('Which album has the most tracks?');
    await box.fill('Which genres have the most tracks?');
    await box.press('Enter');
    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await expect(turn.getByText('Ran a query')).toBeVisible();
    await expect(turn.getByTestId('findings')).toContainText('Rock has 1,297 tracks');
    const chat = page.getByTestId('chat').filter({ hasText: 'Which genres have the most tracks?' });
    await expect(chat).toHaveAttribute('title', 'About the database chinook');
    await turn.getByTestId('findings').getByRole('button', { name: 'q1' }).first().click();
    const q1 = turn.locator('[id$="-q1"]');
    await expect(q1.getByRole('gridcell', { name: '1,297', exact: true })).toBeVisible();
    await snap(page, 'connection-chat');

    // Import a query's result: progress, then a new dataset to join with local files.
    await conn.getByRole('button', { name: 'Import…' }).click();
    const imp = page.getByTestId('import-dialog');
    await imp.getByRole('textbox', { name: 'Query' }).fill(genres.replace(' LIMIT 5', ''));
    await expect(imp.getByRole('textbox', { name: 'Table name' })).toHaveValue('track_import');
    await imp.getByRole('textbox', { name: 'Table name' }).fill('genre_tracks');
    await snap(page, 'connection-import');
    await imp.getByRole('button', { name: 'Import' }).click();
    await expect(imp).toBeHidden();
    const ds = page.getByTestId('dataset').filter({ hasText: 'genre_tracks' });
    await expect(ds).toContainText('25 rows');
    await expect(ds).toContainText('connection chinook');
    await expect(page.getByTestId('grid-count')).toContainText('25 rows');
    await expect(page.getByRole('gridcell', { name: 'Rock', exact: true })).toBeVisible();
    await snap(page, 'connection-imported');
  });
});
