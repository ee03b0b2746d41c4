// `loupe mcp` driven by a real MCP client in another language: the
// official TypeScript SDK, over stdio and over Streamable HTTP, against a
// real workspace (the fixture loaded by `loupe load`) and the scripted fake
// model for ask. No browser: these are protocol tests.
import { test, expect } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from './backend';
import { FAKEMODEL_BIN, FIXTURES, LOUPE_BIN } from './paths';

const TABLE = 'service_requests';
const RUN_SQL = `SELECT count(*) AS n FROM ${TABLE}`;

interface World {
  dir: string;
  ws: string;
  config: string;
  modelURL: string;
  procs: ChildProcess[];
}

/** A workspace holding the fixture and a fake model answering one ask. */
async function world(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-mcp-'));
  const ws = join(dir, 'ws');
  const config = join(dir, 'config');
  execFileSync(LOUPE_BIN, ['load', '--workspace', ws, join(FIXTURES, `${TABLE}.csv`)], { env: env(config) });
  const script = join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify([
      { tool_calls: [{ name: 'run_sql', args: { sql: RUN_SQL, purpose: 'count the requests' } }] },
      { content: 'There are many service requests.\n\nFindings:\n- The table holds the requests [q1]' },
    ]),
  );
  const addr = `127.0.0.1:${await freePort()}`;
  const model = spawn(FAKEMODEL_BIN, ['-addr', addr, '-script', script], { stdio: 'ignore' });
  await waitForPort(addr, model);
  return { dir, ws, config, modelURL: `http://${addr}`, procs: [model] };
}

function env(config: string): Record<string, string> {
  const e: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) e[k] = v;
  return { ...e, LOUPE_WORKSPACE: '', LOUPE_CONFIG_DIR: config, LOUPE_PRIVACY: '' };
}

async function stop(w: World): Promise<void> {
  for (const p of w.procs) {
    if (p.exitCode === null && p.pid !== undefined) {
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await exited;
    }
  }
  rmSync(w.dir, { recursive: true, force: true });
}

function mcpArgs(w: World): string[] {
  return ['mcp', '--workspace', w.ws, '--config', w.config, '--provider', 'ollama', '--model', 'demo', '--base-url', w.modelURL];
}

function textOf(res: unknown): string {
  const content = (res as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

interface Call {
  at: string;
  tool: string;
  status: string;
  ms: number;
}

function calls(w: World): Call[] {
  return readFileSync(join(w.config, 'mcp-calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Call);
}

test('stdio: tools, SQL, a refused DROP, an ask with progress, a cancel', async () => {
  const w = await world();
  const client = new Client({ name: 'ts-e2e', version: '1.0.0' });
  try {
    await client.connect(new StdioClientTransport({ command: LOUPE_BIN, args: mcpArgs(w), env: env(w.config), stderr: 'ignore' }));

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_tables', 'describe_table', 'sample_rows', 'run_sql', 'profile_data', 'create_chart', 'ask', 'write_report']),
    );

    const sql = await client.callTool({ name: 'run_sql', arguments: { sql: RUN_SQL } });
    expect(sql.isError ?? false).toBe(false);
    expect(textOf(sql)).toMatch(/1 row/);

    const drop = await client.callTool({ name: 'run_sql', arguments: { sql: `DROP TABLE ${TABLE}` } });
    expect(drop.isError).toBe(true);
    expect(textOf(drop)).toContain('refused');
    const still = await client.callTool({ name: 'list_tables', arguments: {} });
    expect(textOf(still)).toContain(TABLE);

    const progress: string[] = [];
    const asked = await client.callTool({ name: 'ask', arguments: { question: 'How many service requests are there?' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    expect(asked.isError ?? false).toBe(false);
    expect(textOf(asked)).toContain('status: done');
    expect(textOf(asked)).toContain(`[q1] SQL: ${RUN_SQL}`);
    expect(progress).toContain('Running a query');
    expect(progress.at(-1)).toBe('Finished');

    // A long query, canceled: the SDK sends notifications/cancelled and
    // Loupe's query stops in DuckDB well within a second.
    const abort = new AbortController();
    const long = client.callTool(
      { name: 'run_sql', arguments: { sql: 'SELECT count(*) FROM range(1000000000000) t(i) WHERE i % 7 = 3' } },
      undefined,
      { signal: abort.signal },
    );
    await new Promise((r) => setTimeout(r, 500));
    const canceledAt = Date.now();
    abort.abort('enough');
    await expect(long).rejects.toThrow();
    let last: Call | undefined;
    for (let i = 0; i < 100 && last?.status !== 'canceled'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = calls(w).at(-1);
    }
    expect(last?.tool).toBe('run_sql');
    expect(last?.status).toBe('canceled');
    expect(Date.parse(last!.at) + last!.ms - canceledAt).toBeLessThan(1000);
    // The server is still there.
    expect(textOf(await client.callTool({ name: 'run_sql', arguments: { sql: 'SELECT 42 AS answer' } }))).toContain('42');
  } finally {
    await client.close();
    await stop(w);
  }
});

test('HTTP: refused without the token, served with it', async () => {
  const w = await world();
  const addr = `127.0.0.1:${await freePort()}`;
  const refused = spawnSync(LOUPE_BIN, ['mcp', '--http', '0.0.0.0:7481', '--workspace', w.ws, '--config', w.config], env(w.config));
  expect(refused.code).toBe(2);
  expect(refused.err).toContain('loopback');

  const server = spawn(LOUPE_BIN, [...mcpArgs(w), '--http', addr], { env: env(w.config), stdio: ['ignore', 'ignore', 'pipe'] });
  w.procs.unshift(server);
  let stderr = '';
  server.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  await waitForPort(addr, server);
  const token = readFileSync(join(w.config, 'mcp-token'), 'utf8').trim();
  expect(stderr).toContain(`Bearer ${token}`);
  const url = new URL(`http://${addr}/mcp`);

  const bare = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(bare.status).toBe(401);

  const client = new Client({ name: 'ts-e2e-http', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('run_sql');
    const sql = await client.callTool({ name: 'run_sql', arguments: { sql: RUN_SQL } });
    expect(sql.isError ?? false).toBe(false);
    const drop = await client.callTool({ name: 'run_sql', arguments: { sql: `DELETE FROM ${TABLE}` } });
    expect(drop.isError).toBe(true);
    const progress: string[] = [];
    const asked = await client.callTool({ name: 'ask', arguments: { question: 'How many?' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    expect(textOf(asked)).toContain('status: done');
    expect(progress).toContain('Running a query');
  } finally {
    await client.close();
    await stop(w);
  }
});

function spawnSync(bin: string, args: string[], e: Record<string, string>): { code: number; err: string } {
  try {
    execFileSync(bin, args, { env: e, stdio: ['ignore', 'ignore', 'pipe'] });
    return { code: 0, err: '' };
  } catch (err) {
    const x = err as { status: number; stderr: Buffer };
    return { code: x.status, err: x.stderr.toString() };
  }
}
