import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from './index';
import type { EventSourceLike } from './transport';

// Web mode against a fetch mocked at the network boundary: the requests
// must be what `loupe serve` answers (POST /api/<Method>, a JSON array of
// the arguments), and its replies and errors must come back typed.

type Call = { url: string; method: string; body: unknown };

function reply(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** A fake EventSource: tests push named events into it. */
class FakeEventSource implements EventSourceLike {
  static opened: FakeEventSource[] = [];
  readonly listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>();
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener(type: string, l: (e: MessageEvent<string>) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close(): void {
    this.closed = true;
  }
  push(type: string, data: unknown): void {
    const e = new MessageEvent<string>(type, { data: typeof data === 'string' ? data : JSON.stringify(data) });
    for (const l of this.listeners.get(type) ?? []) l(e);
  }
}

let calls: Call[];
let next: (c: Call) => Response | Promise<Response>;

beforeEach(() => {
  calls = [];
  next = () => reply(200, null);
  FakeEventSource.opened = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const c = { url: String(input), method: init?.method ?? 'GET', body: JSON.parse(String(init?.body ?? 'null')) as unknown };
    calls.push(c);
    return next(c);
  });
  api.useTransport(
    new api.WebTransport({ base: 'http://127.0.0.1:7480/', fetch: fetchMock as typeof fetch, eventSource: (url) => new FakeEventSource(url) }),
  );
});

afterEach(() => {
  api.useTransport(null);
  vi.unstubAllGlobals();
});

describe('web transport calls', () => {
  it.each([
    ['listDatasets', () => api.listDatasets(), 'ListDatasets', []],
    ['openFiles', () => api.openFiles(['/a.csv', '/b.parquet']), 'OpenFiles', [['/a.csv', '/b.parquet']]],
    ['page', () => api.page('r_1', 200, 100), 'Page', ['r_1', 200, 100]],
    ['ask', () => api.ask('chat_1', 'Which region?'), 'Ask', ['chat_1', 'Which region?']],
    ['exportReport', () => api.exportReport('run_1', 'html'), 'ExportReport', ['run_1', 'html']],
    ['renameDataset', () => api.renameDataset('orders', 'sales'), 'RenameDataset', ['orders', 'sales']],
    ['setDatasetNote', () => api.setDatasetNote('orders', 'Web orders', { region: 'sales region' }), 'SetDatasetNote', ['orders', 'Web orders', { region: 'sales region' }]],
    ['setConnectionNote', () => api.setConnectionNote('shop', 'orders', 'Web orders', { status: '3 means cancelled' }), 'SetConnectionNote', ['shop', 'orders', 'Web orders', { status: '3 means cancelled' }]],
    ['sampleQuestions', () => api.sampleQuestions(), 'SampleQuestions', []],
  ])('%s posts its arguments as a JSON array', async (_, run, method, args) => {
    await run();
    expect(calls).toEqual([{ url: `http://127.0.0.1:7480/api/${method}`, method: 'POST', body: args }]);
  });

  it('sends settings with the key and returns results decoded', async () => {
    const settings = {
      provider: 'openai', model: 'gpt-oss-20b', ollamaURL: 'http://127.0.0.1:11434', openaiBaseURL: 'http://localhost:1234/v1',
      hasAPIKey: false, maxSteps: 15, timeoutSeconds: 600, theme: 'dark',
    } as const;
    await api.saveSettings({ ...settings, apiKey: 'sk-1' });
    expect(calls[0]?.body).toEqual([{ ...settings, apiKey: 'sk-1' }]);

    const result = { ref: 'r_9', columns: [{ name: 'n', type: 'BIGINT' }], rows: 5000, kept: 5000, truncated: false, elapsedMs: 3.5, page: { offset: 0, rows: [[1]] } };
    next = () => reply(200, result);
    await expect(api.runSQL('SELECT 1')).resolves.toEqual(result);
    next = () => reply(200, null);
    await expect(api.exportCSV('r_9')).resolves.toBeNull();
  });

  it('rejects with the backend error: code, message and hint', async () => {
    next = () => reply(400, { code: 'refused', message: 'Refused: it changes data', hint: 'Write one SELECT.' });
    const failure = api.runSQL('DROP TABLE orders');
    await expect(failure).rejects.toBeInstanceOf(api.ApiError);
    await expect(failure).rejects.toMatchObject({ code: 'refused', message: 'Refused: it changes data', hint: 'Write one SELECT.' });

    next = () => reply(409, { code: 'busy', message: 'Still answering', hint: 'Press Stop' });
    await expect(api.ask('c', 'q')).rejects.toMatchObject({ code: 'busy' });
  });

  it('says when the backend is unreachable or answers nonsense', async () => {
    next = () => Promise.reject(new TypeError('fetch failed'));
    await expect(api.listChats()).rejects.toMatchObject({ code: 'unreachable' });
    await expect(api.getVersion()).resolves.toBeNull();

    next = () => new Response('gateway exploded', { status: 502 });
    await expect(api.listChats()).rejects.toMatchObject({ code: 'internal', message: 'ListChats: HTTP 502 gateway exploded' });

    next = () => new Response('<html>', { status: 200 });
    await expect(api.listChats()).rejects.toMatchObject({ code: 'internal' });
  });

  it('returns the version when the backend answers', async () => {
    next = () => reply(200, 'v1.2.3');
    await expect(api.getVersion()).resolves.toBe('v1.2.3');
  });
});

describe('web transport events', () => {
  it('shares one event stream and delivers parsed payloads by name', () => {
    const progress = vi.fn();
    const changed = vi.fn();
    const offProgress = api.onEvent('load:progress', progress);
    api.onEvent('datasets:changed', changed);
    expect(FakeEventSource.opened).toHaveLength(1);
    const es = FakeEventSource.opened[0]!;
    expect(es.url).toBe('http://127.0.0.1:7480/api/events');

    const p = { file: '/a.csv', phase: 'reading', percent: 40, rows: 10, bytes: 100, totalBytes: 250 };
    es.push('load:progress', p);
    es.push('datasets:changed', []);
    expect(progress).toHaveBeenCalledWith(p);
    expect(changed).toHaveBeenCalledWith([]);

    offProgress();
    es.push('load:progress', p);
    expect(progress).toHaveBeenCalledTimes(1);
    es.push('load:progress', 'not json {');
    expect(changed).toHaveBeenCalledTimes(1);
  });

  it('flattens one run out of its batches and stops after run_finished', () => {
    const seen: string[] = [];
    api.onRunEvents('run_1', (e) => seen.push(e.type));
    const es = FakeEventSource.opened[0]!;
    const ev = (type: string) => ({ type, run_id: 'run_1', at: '2026-01-01T00:00:00Z' });
    es.push('run:events', { runId: 'run_1', chatId: 'c', events: [ev('run_started'), ev('text_delta')] });
    es.push('run:events', { runId: 'run_2', chatId: 'c', events: [ev('run_started')] });
    es.push('run:events', { runId: 'run_1', chatId: 'c', events: [ev('run_finished')] });
    es.push('run:events', { runId: 'run_1', chatId: 'c', events: [ev('text_delta')] });
    expect(seen).toEqual(['run_started', 'text_delta', 'run_finished']);
  });

  it('never fires file drops in a browser', () => {
    const off = api.onFileDrop(() => undefined);
    expect(typeof off).toBe('function');
    off();
  });
});
