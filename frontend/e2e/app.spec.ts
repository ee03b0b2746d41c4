import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';
import { FIXTURES } from './paths';
import { agencies, clarify, slow, unbacked } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');

test.describe('data', () => {
  test('welcome, open a file with progress, preview and profile it', async ({ page, backend }) => {
    await page.goto(backend.url);
    await expect(page.getByRole('heading', { name: 'Loupe', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: /Try the sample data/ })).toBeVisible();
    await shot(page, 'welcome');

    await openByPath(page, CSV);
    const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
    await expect(item).toContainText('1,000 rows');
    await expect(item).toContainText('service_requests.csv');
    // With data loaded the chat view suggests questions from its columns.
    await expect(page.getByRole('heading', { name: 'What would you like to know?' })).toBeVisible();
    await shot(page, 'data-loaded');

    await item.click();
    await expect(page.getByTestId('grid-count')).toContainText('1,000 rows');
    await expect(page.getByRole('gridcell', { name: '100000', exact: true })).toBeVisible();
    await shot(page, 'dataset-preview');

    await page.getByRole('tab', { name: 'Profile' }).click();
    await expect(page.getByTestId('profile')).toContainText('days_to_close');
    await shot(page, 'dataset-profile');
  });

  test('a file that cannot be read says why where the user looks', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, join(FIXTURES, 'no-such-file.csv'));
    const alert = page.getByRole('alert').filter({ hasText: 'Could not open no-such-file.csv' });
    await expect(alert).toBeVisible();
    await shot(page, 'load-error');
  });

  test('the sample data loads from the welcome screen', async ({ page, backend }) => {
    await page.goto(backend.url);
    await page.getByRole('button', { name: /Try the sample data/ }).click();
    await expect(page.getByTestId('dataset')).toHaveCount(3);
    await expect(page.getByTestId('dataset').filter({ hasText: 'orders' })).toBeVisible();
  });
});

test.describe('asking', () => {
  test.use({ script: agencies });

  test('steps stream, the chart draws, findings link to evidence, the report is written and exported', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');

    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');

    const turn = page.getByTestId('turn').last();
    await expect(turn.getByText('Looked at table service_requests')).toBeVisible();
    await expect(turn.getByText('Ran a query')).toBeVisible();
    await expect(turn.getByText('Drew a chart')).toBeVisible();
    await expect(turn).toHaveAttribute('data-status', 'done');
    // The chart is drawn by vega-embed: an SVG with the bars.
    const chart = turn.getByTestId('chart');
    await expect(chart.locator('svg .mark-rect path').first()).toBeVisible();
    await expect(turn.getByTestId('findings')).toContainText('DOF received the most requests');
    // The conversation is named from its question.
    await expect(page.getByTestId('chat').first()).toContainText('Which agency gets the most requests?');
    await shot(page, 'chat-answer');

    // A finding's ref opens the query behind it, with its result table.
    await turn.getByTestId('findings').getByRole('button', { name: 'q1' }).first().click();
    const q1 = turn.locator('[id$="-q1"]');
    await expect(q1).toBeInViewport();
    await expect(q1.getByTestId('sql')).toContainText('GROUP BY agency');
    await expect(q1.getByTestId('grid-count')).toContainText('8 rows');
    await expect(q1.getByRole('gridcell', { name: 'DOF', exact: true })).toBeVisible();
    await shot(page, 'chat-evidence');

    // After a reload the conversation comes back from the backend, trace and all.
    await page.reload();
    await page.getByTestId('chat').filter({ hasText: 'Which agency gets the most requests?' }).click();
    const restored = page.getByTestId('turn').last();
    await expect(restored.getByText('Drew a chart')).toBeVisible();
    await expect(restored.getByTestId('findings')).toContainText('DOF received the most requests');

    await restored.getByRole('button', { name: /Generate report/ }).click();
    const report = page.getByTestId('report');
    await expect(report.getByRole('heading', { name: 'DOF fields most service requests' })).toBeVisible();
    await expect(report.locator('img.report__chart')).toBeVisible();
    await shot(page, 'report');

    await page.getByRole('button', { name: /Export HTML/ }).click();
    await expect(page.getByText(/Saved the report to/)).toBeVisible();
    await page.getByRole('button', { name: /Export folder/ }).click();
    await expect.poll(() => backend.savedFiles().some((f) => f.endsWith('.md'))).toBe(true);
    expect(backend.savedFiles().some((f) => f.endsWith('.html'))).toBe(true);
    expect(backend.savedFiles().some((f) => f.endsWith('.svg') || f.endsWith('.png'))).toBe(true);
  });

  test.describe('clarification', () => {
    test.use({ script: clarify });

    test('a question with suggested answers; clicking one asks again', async ({ page, backend }) => {
      await page.goto(backend.url);
      await openByPath(page, CSV);
      await expect(page.getByTestId('dataset')).toContainText('service_requests');
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('Where do most requests come from?');
      await box.press('Enter');

      const card = page.getByTestId('question');
      await expect(card).toContainText('Which borough do you mean?');
      await expect(page.getByPlaceholder('Answer the question, or ask something else…')).toBeVisible();
      await shot(page, 'clarification');

      await card.getByRole('button', { name: 'All boroughs' }).click();
      const second = page.getByTestId('turn').nth(1);
      await expect(second.locator('.bubble')).toHaveText('All boroughs');
      await expect(second).toHaveAttribute('data-status', 'done');
      await expect(second.getByTestId('findings')).toContainText('No borough has more than a quarter');
    });
  });

  test.describe('numbers held to their evidence', () => {
    test.use({ script: unbacked });

    test('a number no result backs is marked unverified under the answer', async ({ page, backend }) => {
      await page.goto(backend.url);
      await openByPath(page, CSV);
      await expect(page.getByTestId('dataset')).toContainText('service_requests');
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('How many requests and complaints are there?');
      await box.press('Enter');

      const turn = page.getByTestId('turn').last();
      await expect(turn).toHaveAttribute('data-status', 'done');
      await expect(turn.getByTestId('answer')).toContainText('98,765 [unverified] complaints');
      await expect(turn.getByTestId('unverified')).toHaveText(/Not found in any result of this run: 98,765\./);
      await expect(turn.getByTestId('unverified')).not.toContainText('1,000');
    });
  });

  test.describe('cancel', () => {
    test.use({ script: slow });

    test('Esc stops a running answer within a second', async ({ page, backend }) => {
      await page.goto(backend.url);
      await openByPath(page, CSV);
      await expect(page.getByTestId('dataset')).toContainText('service_requests');
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('Count every pair');
      await box.press('Enter');

      const turn = page.getByTestId('turn').last();
      await expect(turn.getByText('Running a query…')).toBeVisible();
      await expect(page.getByRole('button', { name: /Stop/ })).toBeVisible();
      await shot(page, 'running');
      const t0 = Date.now();
      await page.keyboard.press('Escape');
      await expect(turn).toHaveAttribute('data-status', 'canceled', { timeout: 5_000 });
      expect(Date.now() - t0).toBeLessThan(2_000);
      await expect(turn.getByText(/^Stopped/)).toBeVisible();
      await expect(page.getByRole('button', { name: /Send/ })).toBeVisible();
    });
  });
});

test.describe('SQL console', () => {
  test('completion, run with Ctrl+Enter, a one-click chart, and a million rows that scroll', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    await page.getByRole('button', { name: 'SQL console' }).click();

    const editor = page.getByRole('textbox', { name: 'SQL' });
    await editor.click();
    await page.keyboard.type('SELECT agency, count(*) AS n FROM service_re');
    // Table names complete from the loaded datasets.
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'service_requests' });
    await expect(option).toBeVisible();
    await option.click();
    await page.keyboard.type(' GROUP BY agency ORDER BY n DESC');
    await expect(editor).toContainText('FROM service_requests GROUP BY agency');
    await page.keyboard.press('Control+Enter');
    await expect(page.getByTestId('grid-count')).toContainText('8 rows');
    await page.getByRole('button', { name: /Chart \(bar\)/ }).click();
    await expect(page.getByTestId('chart').locator('svg .mark-rect path').first()).toBeVisible();
    await shot(page, 'console');

    // A million rows: kept in Go, paged as the grid scrolls.
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT range AS i, range * 2 AS twice FROM range(1000000)');
    await page.keyboard.press('Control+Enter');
    await expect(page.getByTestId('grid-count')).toContainText('1,000,000 rows');
    const grid = page.getByTestId('grid');
    const rendered = await grid.getByRole('row').count();
    expect(rendered).toBeLessThan(100);
    const t0 = Date.now();
    await grid.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await expect(grid.getByRole('gridcell', { name: '999,999', exact: true })).toBeVisible();
    const ms = Date.now() - t0;
    console.log(`scroll to row 1,000,000 and page it in: ${ms} ms`);
    await shot(page, 'console-million');
  });

  test('a write is refused by the guard with its hint', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    await page.getByRole('button', { name: 'SQL console' }).click();
    await page.getByRole('textbox', { name: 'SQL' }).click();
    await page.keyboard.type('DROP TABLE service_requests');
    await page.keyboard.press('Control+Enter');
    await expect(page.getByRole('alert')).toContainText('Refused by the read-only guard');
  });
});

test.describe('settings and themes', () => {
  test('settings, status bar, and the dark theme', async ({ page, backend }) => {
    await page.goto(backend.url);
    await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
    await expect(page.getByRole('textbox', { name: /Ollama URL/ })).toHaveValue(/127\.0\.0\.1/);
    await expect(page.getByTestId('status-model')).toBeVisible();
    await shot(page, 'settings');

    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'settings-dark');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await shot(page, 'welcome-dark');
  });
});
