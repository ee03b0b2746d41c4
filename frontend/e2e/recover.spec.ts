// Retry, the sandbox image build, chart saving and the embedding-model
// setting, end to end in web mode: `loupe serve` with the fake model, and,
// for the sandbox, a fake Docker daemon on loopback that speaks the few
// endpoints the build uses (the real build takes minutes).
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openByPath, test as base } from './backend';
import { FIXTURES, REPO } from './paths';
import { slow } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');
const SHOTS = join(REPO, '.cache', 'shots');

/** snap saves a screenshot into .cache/shots/NAME.png. */
async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** A fake Docker daemon: no image until a build finished; a build holds after its first step until released. */
class FakeDocker {
  built = false;
  builds = 0;
  private server: Server;
  private waiting: (() => void)[] = [];
  holding = true;

  constructor() {
    this.server = createServer((req, res) => this.serve(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const addr = this.server.address();
    if (typeof addr !== 'object' || addr === null) throw new Error('fake docker: no address');
    return `tcp://127.0.0.1:${addr.port}`;
  }

  release(): void {
    this.holding = false;
    for (const w of this.waiting.splice(0)) w();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0]!.replace(/^\/v[0-9.]+/, '');
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Api-Version': '1.47' });
      res.end(JSON.stringify(v));
    };
    if (path === '/_ping') {
      res.writeHead(200, { 'Api-Version': '1.47', Ostype: 'linux' });
      res.end('OK');
    } else if (path === '/version') {
      json(200, { Version: '27.5.1', ApiVersion: '1.47', MinAPIVersion: '1.24', Os: 'linux', Arch: 'amd64' });
    } else if (path.startsWith('/images/') && path.endsWith('/json')) {
      if (this.built) json(200, { Id: 'sha256:5eed', Size: 734 << 20, Config: { Labels: {} } });
      else json(404, { message: `No such image: ${decodeURIComponent(path.slice(8, -5))}` });
    } else if (path === '/containers/json') {
      json(200, []);
    } else if (path === '/build' && req.method === 'POST') {
      req.resume();
      req.on('end', () => void this.build(req, res));
    } else {
      json(404, { message: `fake docker: no ${req.method} ${path}` });
    }
  }

  private async build(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.builds++;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Api-Version': '1.47' });
    const send = (m: unknown) => res.write(`${JSON.stringify(m)}\n`);
    send({ stream: 'Step 1/3 : FROM python:3.12-slim\n' });
    for (let i = 1; i <= 3; i++) {
      await new Promise((r) => setTimeout(r, 150));
      send({ status: 'Downloading', id: 'a1b2c3', progressDetail: { current: i * (10 << 20), total: 40 << 20 } });
    }
    if (this.holding) {
      const gone = new Promise<void>((r) => req.socket.once('close', () => r()));
      await Promise.race([new Promise<void>((r) => this.waiting.push(r)), gone]);
      if (req.socket.destroyed) return;
    }
    send({ stream: 'Step 2/3 : RUN pip install --no-cache-dir -r requirements.txt\n' });
    send({ stream: 'Successfully installed pandas-2.2.3\n' });
    send({ stream: 'Step 3/3 : USER 10001\n' });
    send({ stream: 'Successfully built 5eed\n' });
    this.built = true;
    res.end();
  }
}

/** The backend, talking to a fake Docker daemon (DOCKER_HOST is read when loupe serve starts). */
const test = base.extend<{ docker: FakeDocker }>({
  docker: async ({}, use) => {
    const d = new FakeDocker();
    const before = process.env['DOCKER_HOST'];
    process.env['DOCKER_HOST'] = await d.start();
    try {
      await use(d);
    } finally {
      if (before === undefined) delete process.env['DOCKER_HOST'];
      else process.env['DOCKER_HOST'] = before;
      await d.stop();
    }
  },
  backend: async ({ docker, backend }, use) => {
    void docker; // started first, so that loupe serve talks to it
    await use(backend);
  },
});

test.describe('retry', () => {
  test.use({ script: slow });

  test('an answer that was stopped is answered again in place with Retry', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Count every pair that adds up to 7');
    await box.press('Enter');
    const first = page.getByTestId('turn').last();
    await expect(first.getByText('Running a query…')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(first).toHaveAttribute('data-status', 'canceled', { timeout: 5_000 });
    const retry = first.getByRole('button', { name: 'Retry' });
    await expect(retry).toBeVisible();
    await snap(page, 'retry');

    await retry.click();
    await expect(page.getByTestId('turn')).toHaveCount(2);
    const second = page.getByTestId('turn').last();
    await expect(second).toContainText('Count every pair that adds up to 7');
    await expect(second).toHaveAttribute('data-status', 'done');
    await expect(second.getByTestId('answer')).toContainText('Done.');
    await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(0);
    // The conversation as stored: the stopped attempt, then the retry.
    const chats = await backend.call<{ id: string }[]>('ListChats');
    const chat = await backend.call<{ turns: { question: string; outcome?: { status: string } }[] }>('GetChat', chats[0]!.id);
    expect(chat.turns.map((t) => [t.question, t.outcome?.status])).toEqual([
      ['Count every pair that adds up to 7', 'canceled'],
      ['Count every pair that adds up to 7', 'done'],
    ]);
    await snap(page, 'retry-done');
  });
});

test.describe('sandbox image', () => {
  test('the status bar says the image is missing and builds it with a progress bar, cancellable', async ({ page, backend, docker }) => {
    await page.goto(backend.url);
    const item = page.getByTestId('status-docker');
    await expect(item).toContainText('sandbox image missing');
    await item.click();
    const pop = page.getByRole('dialog', { name: 'Docker status' });
    await expect(pop).toContainText('not built yet');

    await pop.getByRole('button', { name: 'Build sandbox image' }).click();
    const bar = pop.getByRole('progressbar', { name: 'Building the sandbox image' });
    await expect(bar).toBeVisible();
    await expect(pop).toContainText('Step 1/3: FROM python:3.12-slim');
    await expect(pop).toContainText('30 of 40 MB');
    await expect(item).toContainText('building the sandbox image');
    await snap(page, 'sandbox-build');

    await pop.getByRole('button', { name: 'Cancel' }).click();
    await expect(pop.getByTestId('sandbox-build-canceled')).toBeVisible({ timeout: 5_000 });
    await expect(bar).toHaveCount(0);
    expect(docker.built).toBe(false);

    // Again, to the end this time.
    docker.release();
    await pop.getByRole('button', { name: 'Build sandbox image' }).click();
    await expect(page.locator('.notice', { hasText: 'Built the Python sandbox' })).toBeVisible();
    await expect(item).not.toContainText('missing');
    await expect(item).toHaveClass(/status--ok/);
    expect(docker.builds).toBe(2);
  });
});

test.describe('settings', () => {
  test('the embedding model setting, the sandbox card, and pulling a model end to end', async ({ page, backend }) => {
    await page.goto(backend.url);
    await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
    const embed = page.getByRole('textbox', { name: 'Embedding model (optional)' });
    await expect(embed).toHaveValue('');
    await expect(page.getByText(/optional semantic boost for table search/)).toBeVisible();
    const sandbox = page.locator('section', { has: page.getByRole('heading', { name: 'Python sandbox' }) });
    await expect(sandbox.getByRole('button', { name: 'Build sandbox image' })).toBeVisible();

    // Pull through the fake model server's /api/pull, watching the model:pull
    // events the page receives; the pulled model is then installed, and, being
    // an embedding model, fills the embedding model field (not the chat model).
    // (A second stream of its own, with the page's token: loupe serve refuses a stream without it.)
    await page.evaluate(async () => {
      const w = window as unknown as { pulls: { status: string; completed: number; total: number }[] };
      w.pulls = [];
      const res = await fetch('/api/events', { headers: { 'X-Loupe-Token': sessionStorage.getItem('loupe.serveToken') ?? '' } });
      if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += dec.decode(value, { stream: true });
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (/^event: model:pull$/m.test(block) && data) w.pulls.push(JSON.parse(data));
          }
        }
      })();
    });
    await page.getByRole('textbox', { name: 'Model to pull' }).fill('nomic-embed-text');
    await page.getByRole('button', { name: 'Pull', exact: true }).click();
    const models = page.getByRole('radiogroup', { name: 'Installed models' });
    await expect(models.getByText('nomic-embed-text', { exact: true })).toBeVisible();
    // The page's own stream may hear the events after the list updates: wait for the last one.
    const seen = () => page.evaluate(() => (window as unknown as { pulls: { status: string; completed: number; total: number }[] }).pulls);
    await expect.poll(async () => (await seen()).at(-1)?.status).toBe('success');
    const pulls = await seen();
    // (The fake pulls at once, so the app's 100 ms throttle keeps only each layer's first line.)
    expect(pulls.filter((p) => p.status.startsWith('pulling ') && p.total > 0).length).toBeGreaterThanOrEqual(3);
    await expect(embed).toHaveValue('nomic-embed-text');
    await expect(models.getByRole('radio', { name: /demo/ })).toBeChecked();

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await backend.call<{ embedModel?: string }>('GetSettings')).embedModel).toBe('nomic-embed-text');
    const saved = page.locator('.notice', { hasText: 'Settings saved' });
    await saved.getByRole('button', { name: 'Dismiss' }).click();
    await expect(saved).toHaveCount(0);
    await expect(models.getByText('nomic-embed-text', { exact: true }).locator('..')).toContainText('embedding · used for table search');
    await snap(page, 'settings-c2');
    await sandbox.scrollIntoViewIfNeeded();
    await snap(page, 'settings-c2-sandbox');
  });
});
