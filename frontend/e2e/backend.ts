// The real backend for one test: the scripted fake model on a free loopback
// port, and `loupe serve` over a fresh workspace, config and save folder,
// set to use that model. Stopped (by pid) when the test ends.
import { test as base, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { FAKEMODEL_BIN, LOUPE_BIN, REPO, SCREENSHOTS } from './paths';

/** One turn of the fake model (see agent/llm/fake/fakemodel). */
export interface Turn {
  content?: string;
  thinking?: string;
  chunks?: number;
  tool_calls?: { name: string; args: Record<string, unknown> }[];
}

export interface Backend {
  /** The address `loupe serve` printed: its origin and `/#token=…`, what a user opens. */
  url: string;
  /** The server's origin, http://127.0.0.1:PORT. */
  origin: string;
  /** The token of this start, sent with every call (X-Loupe-Token). */
  token: string;
  saveDir: string;
  /** The config folder `loupe serve` reads (settings, the MCP call log). */
  configDir: string;
  /** Calls a method of the App façade as the web transport does. */
  call<T>(method: string, ...args: unknown[]): Promise<T>;
  savedFiles(): string[];
}

/** A fake model's script. (An object: Playwright reads an array option as [value, options].) */
export interface Script {
  turns: Turn[];
}

export const test = base.extend<{ script: Script; backend: Backend }>({
  script: [{ turns: [{ content: 'No script for this test.' }] }, { option: true }],
  backend: async ({ script }, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-e2e-'));
    const procs: ChildProcess[] = [];
    try {
      const scriptFile = join(dir, 'script.json');
      writeFileSync(scriptFile, JSON.stringify(script.turns));
      const modelAddr = `127.0.0.1:${await freePort()}`;
      const model = start(FAKEMODEL_BIN, ['-addr', modelAddr, '-script', scriptFile], join(dir, 'fakemodel.log'));
      procs.push(model);
      await waitForPort(modelAddr, model);

      const saveDir = join(dir, 'saved');
      mkdirSync(saveDir);
      const serve = start(
        LOUPE_BIN,
        ['serve', '--addr', '127.0.0.1:0', '--workspace', join(dir, 'ws'), '--config', join(dir, 'config'), '--assets', join(REPO, 'frontend', 'dist'), '--save-dir', saveDir],
        null,
      );
      procs.push(serve);
      const { url, origin, token } = await listening(serve);
      const call = async <T,>(method: string, ...args: unknown[]): Promise<T> => {
        const res = await fetch(`${origin}/api/${method}`, {
          method: 'POST',
          body: JSON.stringify(args),
          headers: { 'content-type': 'application/json', 'x-loupe-token': token },
        });
        const body = await res.text();
        if (!res.ok) throw new Error(`${method}: ${res.status} ${body}`);
        return (body === '' ? undefined : JSON.parse(body)) as T;
      };
      const settings = await call<Record<string, unknown>>('GetSettings');
      await call('SaveSettings', { ...settings, provider: 'ollama', model: 'demo', ollamaURL: `http://${modelAddr}` });
      await use({ url, origin, token, saveDir, configDir: join(dir, 'config'), call, savedFiles: () => listFiles(saveDir) });
    } finally {
      for (const p of procs.reverse()) {
        if (p.exitCode === null && p.pid !== undefined) p.kill('SIGTERM');
      }
      await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : null)));
      rmSync(dir, { recursive: true, force: true });
    }
  },
});

export { expect };

const output = new WeakMap<ChildProcess, string[]>();

function start(bin: string, args: string[], log: string | null): ChildProcess {
  const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOUPE_WORKSPACE: '' } });
  const chunks: string[] = [];
  output.set(p, chunks);
  p.stdout!.on('data', (b: Buffer) => chunks.push(b.toString()));
  p.stderr!.on('data', (b: Buffer) => chunks.push(b.toString()));
  p.on('exit', () => {
    if (log) writeFileSync(log, chunks.join(''));
  });
  return p;
}

/**
 * listening waits for the first line of `loupe serve`:
 * "loupe serve: listening on http://127.0.0.1:PORT/#token=TOKEN".
 */
function listening(p: ChildProcess): Promise<{ url: string; origin: string; token: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`loupe serve did not start: ${out}`)), 30_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      const m = /^loupe serve: listening on ((http:\/\/[^/\s]+)\/#token=([\w-]+))$/.exec(out.slice(0, nl));
      clearTimeout(timer);
      if (m) resolve({ url: m[1]!, origin: m[2]!, token: m[3]! });
      else reject(new Error(`loupe serve's first line is not its address and token: ${out.slice(0, nl)}`));
    };
    p.stdout!.on('data', onData);
    p.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    p.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`loupe serve exited (${code}): ${out}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export async function waitForPort(addr: string, p: ChildProcess): Promise<void> {
  const [host, port] = addr.split(':');
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
      s.connect(Number(port), host!);
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${addr}: ${(output.get(p) ?? []).join('')}`);
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out; // an export's temporary folder, renamed away meanwhile
  }
  for (const e of entries) {
    if (e.isDirectory()) out.push(...listFiles(join(dir, e.name)).map((f) => `${e.name}/${f}`));
    else out.push(e.name);
  }
  return out;
}

/** shot saves a screenshot of the page into e2e/screenshots/NAME.png. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** openByPath opens files the way a browser can: the path dialog. */
export async function openByPath(page: Page, ...paths: string[]): Promise<void> {
  // The shortcut is the app's once it has drawn its first screen.
  await expect(page.getByTestId('statusbar')).toBeVisible();
  await page.keyboard.press('Control+o');
  await page.getByRole('textbox', { name: 'File paths' }).fill(paths.join('\n'));
  await page.getByRole('button', { name: 'Open', exact: true }).click();
}
