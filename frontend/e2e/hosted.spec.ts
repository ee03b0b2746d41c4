// A model server on another machine, as a new user meets it: the first
// question is not sent until a privacy level is chosen; at `schema` the
// model is sent no cell value, writes references, and the user reads the
// real values; "What was sent" shows the requests, and no value is in them.
//
// "Another machine" is the fake model listening on this machine's own
// non-loopback address (Loupe decides by the address it connects to).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, openByPath, shot, test } from './backend';
import { FAKEMODEL_BIN, FIXTURES } from './paths';

/** outsideAddress is an IPv4 address of this machine that is not loopback. */
function outsideAddress(): string | undefined {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.family === 'IPv4' && !a.internal) return a.address;
    }
  }
  return undefined;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

const SQL = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 3';

test('a hosted model: the level is chosen first, and at schema no value is sent while the user reads real ones', async ({ page, backend }) => {
  const host = outsideAddress();
  if (host === undefined) throw new Error('this machine has no address besides loopback to stand for another machine');
  const dir = mkdtempSync(join(tmpdir(), 'loupe-hosted-'));
  let model: ChildProcess | undefined;
  try {
    const script = join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify([
        { tool_calls: [{ name: 'run_sql', args: { sql: SQL, purpose: 'requests per agency' } }] },
        { content: '{{q1.agency[0]}} gets the most requests: {{q1.requests[0]}}.\n\nFindings:\n- {{q1.agency[0]}} leads with {{q1.requests[0]}} [q1]' },
      ]),
    );
    const addr = `${host}:${await freePort(host)}`;
    model = spawn(FAKEMODEL_BIN, ['-addr', addr, '-script', script], { stdio: 'ignore' });
    const settings = await backend.call<Record<string, unknown>>('GetSettings');
    await backend.call('SaveSettings', { ...settings, provider: 'openai', model: 'demo', openaiBaseURL: `http://${addr}/v1`, apiKey: 'sk-test' });

    await page.goto(backend.url);
    await openByPath(page, join(FIXTURES, 'service_requests.csv'));
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');

    // Nothing is sent before the user chooses.
    const chooser = page.getByTestId('privacy-chooser');
    await expect(chooser).toContainText(`Choose what ${addr} may see`);
    await shot(page, 'hosted-chooser');
    await chooser.getByRole('radio', { name: /schema/ }).check();
    await chooser.getByRole('button', { name: /Use schema/ }).click();
    await expect(chooser).toBeHidden();
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');

    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await expect(turn.getByTestId('findings')).toContainText('DOF leads with 490');
    await turn.getByText('What was sent').click();
    const sent = turn.getByTestId('sent');
    await expect(sent.getByTestId('sent-request').first()).toBeVisible();
    for (const body of await sent.getByTestId('sent-request').allInnerTexts()) expect(body).not.toContain('DOF');
    for (const summary of await sent.locator('details summary', { hasText: 'Body' }).all()) await summary.click();
    const bodies = (await sent.locator('pre').allInnerTexts()).join('\n');
    expect(bodies).toContain('service_requests');
    for (const value of ['DOF', 'DOT', '490', '238']) expect(bodies, `a cell value (${value}) in what was sent`).not.toContain(value);
    await expect(sent).toContainText('schema');
    await shot(page, 'hosted-schema');
  } finally {
    if (model?.exitCode === null) model.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});
