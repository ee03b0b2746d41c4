// Issue 16 §3 in the window: connecting the loopback PostgreSQL as the
// superuser postgres, the dialog's Test and the saved connection's entry
// warn that the role can do more than read, with the read-only role's SQL;
// the read-only role gets no warning. Needs scripts/dbservers.sh.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from './backend';
import { REPO } from './paths';

/** Starts (or reuses) the loopback PostgreSQL and returns its settings. */
function postgres(): Record<string, string> {
  const out = execFileSync('bash', [join(REPO, 'scripts', 'dbservers.sh'), 'start', 'pg'], { cwd: REPO, encoding: 'utf8' });
  return Object.fromEntries(out.split('\n').flatMap((l) => (l.includes('=') ? [l.split(/=(.*)/s).slice(0, 2) as [string, string]] : [])));
}

test('a superuser connection is flagged in the dialog and in the sidebar; a read-only one is not', async ({ page, backend }) => {
  const env = postgres();
  await page.goto(backend.url);
  const databases = page.getByRole('region', { name: 'Databases' });
  await databases.getByRole('button', { name: 'Connect one' }).click();
  const dialog = page.getByTestId('connection-dialog');
  await dialog.getByText('PostgreSQL', { exact: true }).click();
  await dialog.getByRole('textbox', { name: 'Host', exact: true }).fill(env['LOUPE_PG_HOST']!);
  await dialog.getByRole('textbox', { name: 'Port', exact: true }).fill(env['LOUPE_PG_PORT']!);
  await dialog.getByRole('textbox', { name: 'Database', exact: true }).fill(env['LOUPE_PG_DATABASE']!);
  await dialog.getByRole('textbox', { name: 'User', exact: true }).fill(env['LOUPE_PG_RO_USER']!);
  await dialog.getByLabel('Password').fill(env['LOUPE_PG_RO_PASSWORD']!);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(dialog.getByTestId('connection-test-ok')).toContainText('Connected to PostgreSQL');
  await expect(dialog.getByTestId('role-warning')).toHaveCount(0);

  await dialog.getByRole('textbox', { name: 'User', exact: true }).fill(env['LOUPE_PG_ADMIN_USER']!);
  await dialog.getByLabel('Password').fill(env['LOUPE_PG_ADMIN_PASSWORD']!);
  await dialog.getByLabel('Name', { exact: true }).fill('chinook-admin');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  const warning = dialog.getByTestId('role-warning');
  await expect(warning).toContainText('postgres can do more than read');
  await expect(warning).toContainText('is a superuser');
  await expect(warning.getByTestId('role-warning-sql')).toContainText(`GRANT CONNECT ON DATABASE ${env['LOUPE_PG_DATABASE']} TO loupe_ro;`);
  await page.screenshot({ path: join(REPO, '.cache', 'shots', 'connection-role-warning.png') });
  await dialog.getByRole('button', { name: 'Add connection' }).click();
  await expect(dialog).toBeHidden();

  const conn = databases.getByTestId('connection').filter({ hasText: 'chinook-admin' });
  await expect(conn.getByTestId('role-badge')).toBeVisible();
  await expect(conn.getByTestId('role-warning')).toContainText('is a superuser');
});
