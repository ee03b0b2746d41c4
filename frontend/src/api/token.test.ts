import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureToken, FetchEventSource, TOKEN_HEADER, TOKEN_STORAGE_KEY, WebTransport } from './transport';

// `loupe serve`'s token: taken from the address's fragment, kept for the tab,
// removed from the address bar, and sent with every call and the event
// stream (in a header, never in a URL).

beforeEach(() => {
  sessionStorage.clear();
  history.replaceState(null, '', '/');
});

afterEach(() => {
  sessionStorage.clear();
  history.replaceState(null, '', '/');
});

describe('captureToken', () => {
  it('takes the token from the fragment, keeps it for the tab and clears it from the address', () => {
    history.replaceState(null, '', '/chat?x=1#token=abc_DEF-123');
    expect(captureToken()).toBe('abc_DEF-123');
    expect(sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('abc_DEF-123');
    expect(location.hash).toBe('');
    expect(location.href).not.toContain('abc_DEF-123');
    expect(location.pathname + location.search).toBe('/chat?x=1');
    // A reload (no fragment any more) keeps the tab's token.
    expect(captureToken()).toBe('abc_DEF-123');
  });

  it('is empty when the page was opened without a token', () => {
    expect(captureToken()).toBe('');
  });

  it('keeps other fragment parameters', () => {
    history.replaceState(null, '', '/#token=t1&view=chat');
    expect(captureToken()).toBe('t1');
    expect(location.hash).toBe('#view=chat');
  });
});

function sseResponse(chunks: string[], status = 200): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
  return new Response(body, { status, headers: { 'Content-Type': 'text/event-stream' } });
}

describe('the token on the wire', () => {
  it('goes with every call in a header, not in the URL', async () => {
    const seen: { url: string; headers: Headers }[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), headers: new Headers(init?.headers) });
      return new Response('[]', { status: 200 });
    });
    const t = new WebTransport({ base: 'http://127.0.0.1:7480', token: 'tok-1', fetch: fetchMock as typeof fetch });
    await t.call('ListChats', []);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.get(TOKEN_HEADER)).toBe('tok-1');
    expect(seen[0]!.url).toBe('http://127.0.0.1:7480/api/ListChats');
  });

  it('a refusal says what to do', async () => {
    const body = { code: 'unauthorized', message: 'This call does not carry loupe serve\'s token.', hint: 'Open the address loupe serve printed' };
    const fetchMock = vi.fn(async () => new Response(JSON.stringify(body), { status: 401 }));
    const t = new WebTransport({ fetch: fetchMock as typeof fetch });
    await expect(t.call('ListChats', [])).rejects.toMatchObject({ code: 'unauthorized', hint: body.hint });
  });

  it('the event stream is read with fetch and the header, events parsed across chunk boundaries', async () => {
    const seen: { url: string; headers: Headers }[] = [];
    let served = 0;
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), headers: new Headers(init?.headers) });
      served++;
      if (served === 1) {
        return sseResponse(['retry: 5\n: connected\n\n', 'event: status:changed\nda', 'ta: {"model":{"ok":true}}\r', '\n\r\nevent: datasets:changed\ndata: [1,\ndata: 2]\n\n']);
      }
      if (served === 2) return sseResponse(['event: status:changed\ndata: {"again":true}\n\n']);
      return new Promise<Response>(() => undefined); // the third connection stays open, quiet
    });
    const t = new WebTransport({ base: 'http://127.0.0.1:7480', token: 'tok-2', fetch: fetchMock as typeof fetch });
    const status: unknown[] = [];
    const datasets: unknown[] = [];
    t.on('status:changed', (p) => status.push(p));
    t.on('datasets:changed', (p) => datasets.push(p));
    // The stream ends; after the server's retry delay (5 ms) it reconnects.
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    expect(status).toEqual([{ model: { ok: true } }, { again: true }]);
    expect(datasets).toEqual([[1, 2]]);
    expect(seen[0]!.url).toBe('http://127.0.0.1:7480/api/events');
    expect(seen.every((s) => s.headers.get(TOKEN_HEADER) === 'tok-2')).toBe(true);
  });

  it('stops for good when the stream is refused', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchMock = vi.fn(async () => new Response('{"code":"unauthorized"}', { status: 401 }));
    const src = new FetchEventSource('/api/events', fetchMock as typeof fetch, {});
    await vi.waitFor(() => expect(err).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 1100));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    src.close();
  });
});
