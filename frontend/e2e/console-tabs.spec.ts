// The console's tabs and query history, and the conversation search over
// answers: "Open in console" opens the agent's query in a tab of its own
// and keeps the tab the user was working in; the history keeps every query
// run and opens one again in a tab; searching a word that only an answer
// holds finds its conversation, the word marked in a snippet.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openByPath, shot, test, type Script } from './backend';
import { FIXTURES, REPO, SCREENSHOTS } from './paths';

const CSV = join(FIXTURES, 'service_requests.csv');
const byAgency = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 8';

/** One query, then an answer that names a word its question and title do not: "Westchester". */
const answer: Script = {
  turns: [
    { tool_calls: [{ name: 'run_sql', args: { sql: byAgency, purpose: 'requests per agency' } }] },
    {
      content:
        'DOF handles the most requests. None of them come from Westchester, which is outside the city.\n\nFindings:\n- DOF received the most requests [q1]',
    },
  ],
};

test.use({ script: answer });

test('Open in console opens a tab and keeps the previous one; the history opens a query again', async ({ page, backend }) => {
  await page.goto(backend.url);
  await openByPath(page, CSV);
  await expect(page.getByTestId('dataset')).toContainText('service_requests');

  // The user's own work in the console's first tab.
  await page.getByRole('button', { name: 'SQL console' }).click();
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  await page.keyboard.type('SELECT 42 AS answer');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('grid-count')).toContainText('1 row');

  // An answer's query, opened in the console.
  await page.getByRole('button', { name: 'New conversation' }).click();
  const box = page.getByRole('textbox', { name: 'Question' });
  await box.fill('Which agency gets the most requests?');
  await box.press('Enter');
  const turn = page.getByTestId('turn').last();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await turn.getByText('Ran a query').first().click();
  await turn.getByRole('button', { name: /Open in console/ }).first().click();

  const tabs = page.getByTestId('console-tab');
  await expect(tabs).toHaveCount(2);
  await expect(page.getByRole('button', { name: /^Query 2/ })).toHaveAttribute('aria-current', 'true');
  await expect(editor).toContainText('GROUP BY agency');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('grid-count')).toContainText('8 rows');

  // The first tab kept its SQL and its result.
  await page.getByRole('button', { name: /^Query 1/ }).click();
  await expect(editor).toContainText('SELECT 42 AS answer');
  await expect(page.getByTestId('grid').getByRole('gridcell', { name: '42', exact: true })).toBeVisible();

  // The history: both queries, newest first, with their rows; searchable.
  await page.getByRole('button', { name: 'History', exact: true }).click();
  const history = page.getByRole('complementary', { name: 'Query history' });
  const entries = history.getByTestId('history-entry');
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toContainText('GROUP BY agency');
  await expect(entries.nth(0)).toContainText('8 rows');
  await expect(entries.nth(1)).toContainText('SELECT 42 AS answer');
  await expect(entries.nth(1)).toContainText('1 row');
  // A failed query is kept with its error.
  await editor.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('SELECT * FROM nowhere');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(entries).toHaveCount(3);
  await expect(entries.nth(0)).toContainText('failed');
  await mkdirScreens();
  await shot(page, 'console-tabs-history');
  copyFileSync(join(SCREENSHOTS, 'console-tabs-history.png'), join(REPO, 'docs', 'screens', 'console-tabs-history.png'));

  // At 1024 px the history keeps its width and the editor and result the rest.
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(history).toBeVisible();
  const box1024 = await history.boundingBox();
  expect(box1024?.width).toBeGreaterThan(250);
  await shot(page, 'console-tabs-history-1024');
  await page.setViewportSize({ width: 1280, height: 800 });

  await history.getByRole('searchbox', { name: 'Search the query history' }).fill('agency');
  await expect(entries).toHaveCount(1);
  await entries.first().click();
  await expect(tabs).toHaveCount(3);
  await expect(page.getByRole('button', { name: /^Query 3/ })).toHaveAttribute('aria-current', 'true');
  await expect(editor).toContainText('GROUP BY agency');

  // The tabs outlive a reload (their SQL; results are run again).
  await page.waitForTimeout(400);
  await page.reload();
  await page.getByRole('button', { name: 'SQL console' }).click();
  await expect(tabs).toHaveCount(3);
  await page.getByRole('button', { name: /^Query 1/ }).click();
  await expect(editor).toContainText('SELECT * FROM nowhere');

  // Closing a tab from the keyboard.
  await page.getByRole('button', { name: /^Query 1/ }).focus();
  await page.keyboard.press('Delete');
  await expect(tabs).toHaveCount(2);
});

test('searching a word that only an answer holds finds the conversation, the word marked', async ({ page, backend }) => {
  await page.goto(backend.url);
  await openByPath(page, CSV);
  await expect(page.getByTestId('dataset')).toContainText('service_requests');
  const box = page.getByRole('textbox', { name: 'Question' });
  await box.fill('Which agency gets the most requests?');
  await box.press('Enter');
  await expect(page.getByTestId('turn').last()).toHaveAttribute('data-status', 'done');
  const chat = page.getByTestId('chat').first();
  await expect(chat).not.toContainText(/west/i);

  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('West');
  const hit = page.getByTestId('chat-hit');
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark')).toHaveText('West');
  await expect(hit.getByTestId('chat-hit-snippet')).toContainText('None of them come from Westchester');
  await expect(hit).toContainText('in an answer');
  await mkdirScreens();
  await shot(page, 'conversation-search');
  copyFileSync(join(SCREENSHOTS, 'conversation-search.png'), join(REPO, 'docs', 'screens', 'conversation-search.png'));

  // Nothing holds this one; the hit opens its conversation.
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('Eastchester');
  await expect(page.getByText('No conversation holds “Eastchester”.')).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('westchester');
  await hit.click();
  await expect(page.getByTestId('turn')).toHaveCount(1);
});

async function mkdirScreens() {
  mkdirSync(join(REPO, 'docs', 'screens'), { recursive: true });
}
