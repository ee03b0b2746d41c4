// Issue 16 §1, tested the way it was found: a scripted malicious model
// answers with markdown images (inline and reference-style), links, raw
// HTML and a chart spec written to leak, every address pointing at a
// logging listener on loopback. The conversation, its report and the
// exported HTML are opened in Chromium: zero requests may reach the
// listener, the images show as placeholders with their addresses, and no
// chart has an action menu.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openByPath, shot, test as base } from './backend';
import { hostile, hostileSpec, startListener, withSpec, type Listener } from './containment';
import { FIXTURES } from './paths';

const test = base.extend<{ listener: Listener }>({
  listener: async ({}, use) => {
    const l = await startListener();
    await use(l);
    await l.close();
  },
  script: async ({ listener }, use) => use(hostile(listener.url)),
});

/** policyViolations collects what the page's Content-Security-Policy refused. */
function policyViolations(page: Page): string[] {
  const out: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) out.push(m.text());
  });
  return out;
}

test('a malicious model cannot make the window, the report or the exported HTML fetch', async ({ page, backend, listener }) => {
  // The listener is reachable: a request to it would be seen.
  await fetch(`${listener.url}/probe`);
  expect(listener.hits).toEqual(['GET /probe']);
  listener.hits.length = 0;

  const violations = policyViolations(page);
  await page.goto(backend.url);
  await openByPath(page, join(FIXTURES, 'service_requests.csv'));
  await expect(page.getByTestId('dataset')).toContainText('service_requests');
  const box = page.getByRole('textbox', { name: 'Question' });
  await box.fill('Which agency gets the most requests?');
  await box.press('Enter');
  const live = page.getByTestId('turn').last();
  await expect(live).toHaveAttribute('data-status', 'done');

  // The conversation as stored, its chart replaced by the hostile spec.
  await page.route('**/api/GetChat', async (route) => {
    const res = await route.fetch();
    const body: unknown = await res.json();
    await route.fulfill({ response: res, json: withSpec(body, hostileSpec(listener.url)) });
  });
  await page.reload();
  await page.getByTestId('chat').filter({ hasText: 'Which agency gets the most requests?' }).click();
  const turn = page.getByTestId('turn').last();
  await expect(turn.getByTestId('findings')).toContainText('DOF leads');
  const chart = turn.getByTestId('chart');
  await expect(chart.locator('svg .mark-rect path').first()).toBeVisible();
  await expect(chart.locator('svg .mark-image image').first()).toBeAttached();
  await page.waitForTimeout(500);
  expect(listener.hits, 'requests from opening the conversation').toEqual([]);

  // Images: placeholders with their addresses, in the steps, the answer and a finding.
  const blocked = turn.getByTestId('blocked-image');
  for (const where of ['step', 'answer']) {
    await expect(blocked.filter({ hasText: `${listener.url}/${where}/inline?d=DOF` })).toHaveCount(1);
    await expect(blocked.filter({ hasText: `${listener.url}/${where}/reference?d=DOF` })).toHaveCount(1);
  }
  await expect(blocked.filter({ hasText: `${listener.url}/finding/inline` })).toHaveCount(1);
  await expect(turn.locator('img')).toHaveCount(0);
  await expect(turn).not.toContainText('raw-html');
  // No action menu on the chart, whatever usermeta asked for.
  await expect(page.locator('.vega-actions, .vega-embed details')).toHaveCount(0);
  // A link shows its whole address first; nothing opens by itself.
  await turn.getByTestId('md-link').filter({ hasText: 'answer link' }).click();
  await expect(turn.getByTestId('link-address')).toHaveText(`${listener.url}/answer/link?d=DOF`);
  await expect(turn.getByTestId('link-confirm').getByRole('link', { name: 'Open' })).toHaveAttribute('href', `${listener.url}/answer/link?d=DOF`);
  // Clicking the image marks (href channel) goes nowhere.
  await chart.locator('svg .mark-rect path').first().click();
  await shot(page, 'containment-chat');

  // The report view.
  await turn.getByRole('button', { name: /Generate report/ }).click();
  const report = page.getByTestId('report');
  await expect(report.getByRole('heading', { name: 'Requests by agency', level: 1 })).toBeVisible();
  await expect(report.locator('img.report__chart')).toBeVisible();
  // The report stage drops every image the model wrote (inline and
  // reference-style) before the report is stored, so none reaches the view;
  // the view's own placeholders are tested with Vitest (MarkdownView).
  await expect(report).not.toContainText(`${listener.url}/report/reference?d=DOF`);
  await expect(report).not.toContainText(`${listener.url}/report/inline?d=DOF`);
  for (const img of await report.locator('img').all()) {
    expect(await img.getAttribute('src')).toMatch(/^data:image\//);
  }
  await shot(page, 'containment-report');
  expect(listener.hits, 'requests from the conversation and its report').toEqual([]);

  // The exported HTML, opened as a file; and a copy whose chart spec is
  // the hostile one (as if the stored exploration held it).
  await page.getByRole('button', { name: /Export HTML/ }).click();
  await expect(page.getByText(/Saved the report to/)).toBeVisible();
  const html = backend.savedFiles().find((f) => f.endsWith('.html'));
  expect(html).toBeDefined();
  const exported = join(backend.saveDir, html!);
  const hostileCopy = join(backend.saveDir, 'hostile-chart.html');
  const spec = JSON.stringify(hostileSpec(listener.url)).replace(/</g, '\\u003c');
  const page2 = readFileSync(exported, 'utf8').replace(
    /(<script type="application\/json" data-chart="vis-c1">)(.*?)(<\/script>)/s,
    (_m, open: string, old: string, close: string) =>
      `${open}${JSON.stringify({ ...JSON.parse(spec), data: (JSON.parse(old) as { data: unknown }).data }).replace(/</g, '\\u003c')}${close}`,
  );
  expect(page2).toContain('/chart/lookup.json');
  writeFileSync(hostileCopy, page2);
  for (const file of [exported, hostileCopy]) {
    const p = await page.context().newPage();
    await p.goto(`file://${file}`);
    await expect(p.locator('body')).not.toContainText(`${listener.url}/report/reference?d=DOF`); // dropped by the report stage
    await expect(p.locator('.link-address').first()).toContainText(listener.url);
    await expect(p.locator('figure.chart .vis.drawn svg').first()).toBeVisible();
    await expect(p.locator('.vega-actions summary, .vega-embed details summary')).toHaveCount(1); // export only
    await p.locator('.vega-embed details summary').first().click();
    await expect(p.locator('.vega-actions')).not.toContainText(/View Source|Open in Vega Editor|View Compiled/);
    await p.close();
  }

  await page.waitForTimeout(500);
  expect(listener.hits, 'requests from the window, the report and the exported HTML').toEqual([]);
  expect(violations, 'what the content policy had to refuse').toEqual([]);
});
