// WCAG 2.2 AA on every screen, in both themes: axe-core runs over the page
// after each step of an analyst's day (start, open files, a dataset's preview
// and profile, a chat answer and its evidence, the report, the console, a
// database connection, settings, and every dialog and menu on the way), and
// no serious or critical violation may remain. The rules of every screen are
// written to e2e/screenshots/a11y-<theme>.json, a record to compare.
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openByPath, test } from './backend';
import { FIXTURES, REPO, SCREENSHOTS } from './paths';
import { agencies } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');
const CHINOOK = join(REPO, 'data', 'remote', 'sqlite', 'testdata', 'Chinook_Sqlite.sqlite');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** One screen's result: the serious and critical violations, each with where it is. */
interface ScreenResult {
  screen: string;
  passes: number;
  /** The rules broken with a moderate or minor impact (allowed, recorded). */
  lesser: string[];
  violations: { id: string; impact: string; help: string; nodes: string[] }[];
}

/** Runs axe over the whole page as it is now. */
async function audit(page: Page, screen: string, out: ScreenResult[]): Promise<void> {
  await page.mouse.move(0, 0);
  // Transitions finished: colours are measured as the user sees them.
  await page.waitForTimeout(250);
  const r = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  out.push({
    screen,
    passes: r.passes.length,
    lesser: r.violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical').map((v) => `${v.id} (${v.impact})`),
    violations: r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`),
      })),
  });
  report(out);
}

let theme = 'light';

/** report writes the results so far, so a failed step still leaves a record. */
function report(results: ScreenResult[]): void {
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeFileSync(join(SCREENSHOTS, `a11y-${theme}.json`), JSON.stringify(results, null, 2));
}

test.describe('accessibility', () => {
  test.use({ script: agencies });

  for (const scheme of ['light', 'dark'] as const) {
    test(`every screen meets WCAG 2.2 AA in the ${scheme} theme`, async ({ page, backend }) => {
      theme = scheme;
      test.setTimeout(180_000);
      const results: ScreenResult[] = [];
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(backend.url);
      await expect(page.getByRole('heading', { name: 'Loupe', level: 1 })).toBeVisible();
      await audit(page, 'start', results);

      await page.keyboard.press('Control+o');
      await expect(page.getByRole('textbox', { name: 'File paths' })).toBeVisible();
      await audit(page, 'open-files dialog', results);
      await page.keyboard.press('Escape');

      await openByPath(page, CSV);
      const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
      await expect(item).toContainText('1,000 rows');
      await expect(page.getByRole('heading', { name: 'What would you like to know?' })).toBeVisible();
      await audit(page, 'data loaded', results);

      await item.click();
      await expect(page.getByRole('gridcell', { name: '100000', exact: true })).toBeVisible();
      await audit(page, 'dataset preview', results);
      // Sorted, with a column's summary and filter open.
      await page.getByRole('button', { name: /^days_to_close, not sorted/ }).click();
      await page.getByRole('button', { name: 'days_to_close: summary and filter' }).click();
      await expect(page.getByTestId('column-summary')).toContainText('Distinct');
      await expect(page.getByTestId('grid-view')).toContainText('Sorted by days_to_close');
      await audit(page, 'dataset preview sorted, column panel', results);
      await page.keyboard.press('Escape');
      await page.getByRole('tab', { name: 'Profile' }).click();
      await expect(page.getByTestId('profile')).toContainText('days_to_close');
      await audit(page, 'dataset profile', results);

      await item.getByRole('button', { name: 'Actions for service_requests' }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      await audit(page, 'dataset menu', results);
      await page.getByRole('menuitem', { name: 'Notes…' }).click();
      await expect(page.getByTestId('notes-dialog')).toBeVisible();
      await audit(page, 'notes dialog', results);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('notes-dialog')).toBeHidden();

      await page.getByRole('button', { name: 'Private…' }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await audit(page, 'private columns dialog', results);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toBeHidden();

      await page.getByRole('button', { name: 'New conversation' }).click();
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('Which agency gets the most requests?');
      await box.press('Enter');
      const turn = page.getByTestId('turn').last();
      await expect(turn).toHaveAttribute('data-status', 'done');
      await expect(turn.getByTestId('chart').locator('svg').first()).toBeVisible();
      await audit(page, 'chat answer', results);
      const final = turn.getByTestId('final-result');
      await final.getByRole('button', { name: 'Edit chart' }).click();
      await final.getByText('Advanced: the Vega-Lite spec').click();
      await expect(final.getByRole('textbox', { name: 'Vega-Lite spec (JSON)' })).toBeVisible();
      await audit(page, 'chart editor', results);
      await final.getByRole('button', { name: 'Cancel' }).click();
      await turn.getByTestId('findings').getByRole('button', { name: 'q1' }).first().click();
      await expect(turn.locator('[id$="-q1"]').getByTestId('grid-count')).toContainText('8 rows');
      await turn.getByText('What was sent').click();
      await expect(turn.getByTestId('sent')).not.toContainText('Reading…');
      await audit(page, 'chat evidence', results);

      // "Finance" is only in the answer: the search finds it there, marked in a snippet.
      const search = page.getByRole('searchbox', { name: 'Search conversations' });
      await search.fill('Finance');
      await expect(page.getByTestId('chat-hit').first().locator('mark')).toHaveText('Finance');
      await audit(page, 'conversation search', results);
      await search.fill('');

      await turn.getByRole('button', { name: /Generate report/ }).click();
      await expect(page.getByTestId('report').locator('img.report__chart')).toBeVisible();
      await audit(page, 'report', results);

      await item.getByRole('button', { name: 'Actions for service_requests' }).click();
      await page.getByRole('menuitem', { name: 'Query in console' }).click();
      await page.getByRole('button', { name: /^Run/ }).click();
      await expect(page.getByTestId('grid-count')).toBeVisible();
      await audit(page, 'console', results);
      // A second tab and the query history beside it.
      await page.getByRole('button', { name: 'New query tab' }).click();
      await page.getByRole('button', { name: 'History', exact: true }).click();
      await expect(page.getByTestId('history-entry').first()).toBeVisible();
      await audit(page, 'console tabs and history', results);

      const databases = page.getByRole('region', { name: 'Databases' });
      await databases.getByRole('button', { name: 'Connect one' }).click();
      const dialog = page.getByTestId('connection-dialog');
      await audit(page, 'connection dialog', results);
      await dialog.getByText('SQLite file', { exact: true }).click();
      await dialog.getByLabel('Database file').fill(CHINOOK);
      await dialog.getByRole('button', { name: 'Test connection' }).click();
      await expect(dialog.getByTestId('connection-test-ok')).toBeVisible();
      await audit(page, 'connection dialog tested', results);
      await dialog.getByRole('button', { name: 'Add connection' }).click();
      await expect(dialog).toBeHidden();
      const conn = databases.getByTestId('connection').filter({ hasText: 'Chinook_Sqlite' });
      await expect(conn.getByTestId('connection-table').first()).toBeVisible();
      await conn.getByRole('button', { name: 'Ask about it' }).click();
      await expect(page.getByTestId('connection-ask-empty')).toBeVisible();
      await audit(page, 'connection chat', results);
      await conn.getByRole('button', { name: 'Import…' }).click();
      await expect(page.getByTestId('import-dialog')).toBeVisible();
      await audit(page, 'import dialog', results);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('import-dialog')).toBeHidden();

      await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
      await audit(page, 'settings', results);

      const failing = results.filter((r) => r.violations.length > 0);
      expect(failing, JSON.stringify(failing, null, 2)).toEqual([]);
    });
  }
});
