import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openByPath, shot, test, type Script } from './backend';
import { FIXTURES, REPO, SCREENSHOTS } from './paths';

const CSV = join(FIXTURES, 'service_requests.csv');
const byAgency = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 8';
const byBorough = 'SELECT borough, count(*) AS requests FROM service_requests GROUP BY borough ORDER BY requests DESC';
const bar = (x: string) => ({
  mark: 'bar',
  encoding: { x: { field: x, type: 'nominal', sort: '-y' }, y: { field: 'requests', type: 'quantitative' } },
});

/** A question with a chart, a follow-up with another, then two reports: the whole conversation, then question 2. */
const conversation: Script = {
  turns: [
    { tool_calls: [{ name: 'run_sql', args: { sql: byAgency, purpose: 'requests per agency' } }] },
    { tool_calls: [{ name: 'create_chart', args: { title: 'Requests by agency', sql: byAgency, spec: bar('agency') } }] },
    { content: 'DOF handles the most requests.\n\nFindings:\n- DOF received the most requests [q1, c1]' },
    { tool_calls: [{ name: 'run_sql', args: { sql: byBorough, purpose: 'requests per borough' } }] },
    { tool_calls: [{ name: 'create_chart', args: { title: 'Requests by borough', sql: byBorough, spec: bar('borough') } }] },
    { content: 'Brooklyn has the most requests.\n\nFindings:\n- Brooklyn leads the boroughs [q2, c2]' },
    {
      content:
        '# Where the city’s service requests go\n\n## Executive summary\n\nDOF receives the most requests [q1, c1]; Brooklyn sends the most [q2, c2].\n\n' +
        '## Findings\n\n### Agencies\n\nDOF leads the agencies [q1, c1].\n\n{{chart:c1}}\n\n### Boroughs\n\nBrooklyn leads the boroughs [q2].\n\n{{chart:c2}}\n\n{{table:q2}}\n\n' +
        'A third claim rests on nothing this conversation ran [q9].\n\n{{chart:c5}}\n\n## Method\n\nTwo aggregate queries (q1, q2).',
    },
    { content: '# Brooklyn sends the most requests\n\nBrooklyn leads [q2, c2].\n\n{{chart:c2}}\n' },
  ],
};

test.describe('a report of the whole analysis', () => {
  test.use({ script: conversation });

  test('generated on a follow-up, it covers both questions; refs resolve; removals are listed', async ({ page, backend }) => {
    mkdirSync(join(REPO, 'docs', 'screens'), { recursive: true });
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');
    const first = page.getByTestId('turn').first();
    await expect(first).toHaveAttribute('data-status', 'done');
    // A thumbs up verifies the answer; it stays on the turn.
    await first.getByRole('button', { name: /Right answer/ }).click();
    await expect(first.getByTestId('verdict')).toContainText('Verified');
    await expect(first.getByRole('button', { name: /Right answer/ })).toHaveAttribute('aria-pressed', 'true');
    await first.getByTestId('verdict').scrollIntoViewIfNeeded();
    await shot(page, 'verdict');
    copyFileSync(join(SCREENSHOTS, 'verdict.png'), join(REPO, 'docs', 'screens', 'verdict.png'));
    await box.fill('And which borough?');
    await box.press('Enter');
    const follow = page.getByTestId('turn').nth(1);
    await expect(follow).toHaveAttribute('data-status', 'done');
    // The follow-up's query and chart are q2 and c2: refs run on across the conversation.
    await expect(follow.getByTestId('findings').getByRole('button', { name: 'q2' })).toBeVisible();
    await expect(follow.getByTestId('findings').getByRole('button', { name: 'c2' })).toBeVisible();

    await follow.getByRole('button', { name: /Generate report/ }).click();
    const report = page.getByTestId('report');
    await expect(report.getByRole('heading', { name: 'Where the city’s service requests go' })).toBeVisible();
    // Both questions' charts, and the appendix of both queries.
    await expect(report.locator('img.report__chart')).toHaveCount(2);
    await expect(report.getByRole('heading', { name: /q1 — requests per agency/ })).toBeVisible();
    await expect(report.getByRole('heading', { name: /q2 — requests per borough/ })).toBeVisible();
    // Citations read as figures and tables; none is left raw.
    await expect(report).toContainText('DOF leads the agencies (query q1; Figure 1).');
    await expect(report).toContainText('Brooklyn leads the boroughs (Table 1).');
    await expect(report).not.toContainText('[q');
    // What was removed is listed on the report.
    await expect(report.getByRole('heading', { name: 'Notes on this report' })).toBeVisible();
    await expect(report).toContainText('Removed a placeholder for c5');
    await expect(report).toContainText('Removed the citation q9');
    await expect(page.getByTestId('report-notes')).toContainText('2 notes');
    await expect(page.getByTestId('report-cover')).toContainText('Covers both questions');
    await shot(page, 'report-conversation');
    copyFileSync(join(SCREENSHOTS, 'report-conversation.png'), join(REPO, 'docs', 'screens', 'report-conversation.png'));
    await report.getByRole('heading', { name: 'Notes on this report' }).scrollIntoViewIfNeeded();
    await shot(page, 'report-notes');
    copyFileSync(join(SCREENSHOTS, 'report-notes.png'), join(REPO, 'docs', 'screens', 'report-notes.png'));

    // The user picks question 2 alone: the report is written again for it.
    const cover = page.getByTestId('report-cover');
    await cover.locator('summary').click();
    await cover.getByRole('checkbox', { name: /Which agency/ }).uncheck();
    await cover.getByRole('button', { name: 'Write the report of question 2' }).click();
    await expect(report.getByRole('heading', { name: 'Brooklyn sends the most requests' })).toBeVisible();
    await expect(report.locator('img.report__chart')).toHaveCount(1);
    await expect(page.getByTestId('report-cover')).toContainText('Covers question 2 of 2');
  });
});
