// The two ways to reach the Go App: the Wails bridge inside the window, and
// web mode (`loupe serve`) over HTTP and Server-Sent Events. Both carry the
// same methods, arguments, results, errors and events.
import type * as Bindings from '../../wailsjs/go/app/App';
import { ApiError, toApiError } from './errors';

/**
 * METHODS are the Go methods of app.App the API calls. The `satisfies`
 * check fails type-checking when a method is missing from the bindings
 * `make bindings` generates, and bindings.test.ts fails when the bindings
 * hold a method this list lacks: either way, Go and TypeScript cannot drift
 * apart unnoticed.
 */
export const METHODS = [
  'Ask',
  'BuildSandbox',
  'Cancel',
  'CancelConsoleSQL',
  'CancelImport',
  'CancelLoad',
  'CancelRefresh',
  'CancelSQL',
  'CancelSandboxBuild',
  'ChartRendered',
  'ChooseFiles',
  'ChooseFolder',
  'ClearQueryHistory',
  'ConnectionPrivateColumns',
  'ConnectionTables',
  'DeleteChat',
  'DiffReportVersions',
  'EditChart',
  'ExportCSV',
  'ExportDataset',
  'ExportReport',
  'ExportResult',
  'Feedback',
  'FoldersAmong',
  'GetChat',
  'GetDataset',
  'GetPrivacy',
  'GetReport',
  'GetReportVersion',
  'GetSettings',
  'ImportQuery',
  'ListChats',
  'ListConnections',
  'ListDatasets',
  'ListModels',
  'ListModelsFor',
  'MCPSetup',
  'NewChat',
  'NewConnectionChat',
  'OpenFiles',
  'OpenFilesWith',
  'OpenFolder',
  'Page',
  'PreviewDataset',
  'PrivateColumns',
  'ProfileDataset',
  'PullModel',
  'QueryHistory',
  'RecentFiles',
  'RefreshDataset',
  'RefreshReport',
  'ReloadDataset',
  'RemoveConnection',
  'RemoveDataset',
  'RenameChat',
  'RenameDataset',
  'ReportVersions',
  'ResetChart',
  'Retry',
  'RunConsoleSQL',
  'RunSQL',
  'SampleDataset',
  'SampleQuestions',
  'SaveChart',
  'SaveConnection',
  'SaveSettings',
  'SchemaNames',
  'SearchChats',
  'SentOf',
  'SummarizeResult',
  'SetConnectionNote',
  'SetConnectionPrivateColumn',
  'SetDatasetNote',
  'SetPrivacy',
  'SetPrivateColumn',
  'Status',
  'TestConnection',
  'TestConnectionInput',
  'TestSettings',
  'Version',
  'ViewResult',
  'WriteReport',
] as const satisfies readonly (keyof typeof Bindings)[];

export type Method = (typeof METHODS)[number];

export type Unsubscribe = () => void;

/** A way to reach the backend. */
export interface Transport {
  readonly kind: 'desktop' | 'web';
  /** call runs a Go method; it rejects with ApiError. */
  call(method: Method, args: unknown[]): Promise<unknown>;
  /** on subscribes to a backend event. */
  on(name: string, handler: (payload: unknown) => void): Unsubscribe;
  /** onFileDrop subscribes to files dropped on the window (desktop only). */
  onFileDrop(handler: (paths: string[]) => void): Unsubscribe;
}

// ---- Desktop: the Wails bridge -------------------------------------------------

/** The window's bridge: window.go (bound methods) and window.runtime. */
export class DesktopTransport implements Transport {
  readonly kind = 'desktop';
  private readonly drops = new Set<(paths: string[]) => void>();

  async call(method: Method, args: unknown[]): Promise<unknown> {
    const fn = window.go?.app?.App?.[method];
    if (typeof fn !== 'function') {
      throw new ApiError('internal', `${method} is not bound in this window`, 'The app and its frontend do not match: rebuild it (make build).');
    }
    try {
      return await fn(...args);
    } catch (err) {
      throw toApiError(err, method);
    }
  }

  on(name: string, handler: (payload: unknown) => void): Unsubscribe {
    const rt = window.runtime;
    if (!rt) return () => undefined;
    return rt.EventsOn(name, (payload?: unknown) => handler(payload));
  }

  onFileDrop(handler: (paths: string[]) => void): Unsubscribe {
    const rt = window.runtime;
    if (!rt) return () => undefined;
    if (this.drops.size === 0) {
      // One window-wide listener, shared (Wails allows only one).
      rt.OnFileDrop((_x: number, _y: number, paths: string[]) => {
        for (const h of [...this.drops]) h(paths);
      }, false);
    }
    this.drops.add(handler);
    return () => {
      if (this.drops.delete(handler) && this.drops.size === 0) rt.OnFileDropOff();
    };
  }
}

// ---- Web mode: HTTP + Server-Sent Events -------------------------------------

/** The header that carries `loupe serve`'s token on every call and the event stream. */
export const TOKEN_HEADER = 'X-Loupe-Token';

/** Where the page keeps the token: for this tab only, gone when it closes. */
export const TOKEN_STORAGE_KEY = 'loupe.serveToken';

/**
 * captureToken takes `loupe serve`'s token from the address it printed
 * (`http://127.0.0.1:PORT/#token=…`: in the fragment, which the browser
 * never sends to a server or in a Referer), keeps it in sessionStorage and
 * removes it from the address bar, so that it is not bookmarked, shared or
 * kept in the history. It returns the token of this tab ('' when none).
 */
export function captureToken(w: Pick<Window, 'location' | 'history' | 'sessionStorage'> = window): string {
  const params = new URLSearchParams(w.location.hash.replace(/^#/, ''));
  const fromURL = params.get('token');
  if (fromURL) {
    try {
      w.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromURL);
    } catch {
      // Storage refused (a privacy mode): the token lives in memory only.
    }
    params.delete('token');
    const rest = params.toString();
    w.history.replaceState(w.history.state, '', `${w.location.pathname}${w.location.search}${rest ? `#${rest}` : ''}`);
    return fromURL;
  }
  try {
    return w.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The constructor of EventSource, replaceable in tests. */
export type EventSourceLike = {
  addEventListener(type: string, listener: (e: MessageEvent<string>) => void): void;
  close(): void;
};

/**
 * FetchEventSource reads a Server-Sent Events stream with fetch, so that it
 * can send the token in a header (EventSource cannot set headers, and a
 * token in the URL would end up in logs). Like EventSource it reconnects
 * after the server's retry delay when the stream ends or fails; a 401 or
 * 403 (no or wrong token, foreign page) stops it for good.
 */
export class FetchEventSource implements EventSourceLike {
  private readonly listeners = new Map<string, Set<(e: MessageEvent<string>) => void>>();
  private readonly abort = new AbortController();
  private retryMs = 1000;

  constructor(
    readonly url: string,
    private readonly fetchFn: typeof fetch,
    private readonly headers: Record<string, string>,
  ) {
    void this.run();
  }

  addEventListener(type: string, listener: (e: MessageEvent<string>) => void): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
  }

  close(): void {
    this.abort.abort();
  }

  private get closed(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      try {
        const res = await this.fetchFn(this.url, { headers: { Accept: 'text/event-stream', ...this.headers }, signal: this.abort.signal, cache: 'no-store' });
        if (res.status === 401 || res.status === 403) {
          console.error(`loupe: the event stream was refused (HTTP ${res.status}): ${await res.text()}`);
          return;
        }
        if (res.ok && res.body) await this.read(res.body);
      } catch {
        // Dropped or unreachable: try again below, as EventSource does.
      }
      if (this.closed) return;
      await new Promise((r) => setTimeout(r, this.retryMs));
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let name = '';
    let data: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        if (buf[nl] === '\r' && nl === buf.length - 1) break; // maybe \r\n split across chunks
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) this.emit(name || 'message', data.join('\n'));
          name = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = val;
        else if (field === 'data') data.push(val);
        else if (field === 'retry' && /^\d+$/.test(val)) this.retryMs = Number(val);
      }
    }
  }

  private emit(type: string, data: string): void {
    const e = new MessageEvent<string>(type, { data });
    for (const l of [...(this.listeners.get(type) ?? [])]) l(e);
  }
}

export interface WebOptions {
  /** The backend's origin; '' means the page's own. */
  base?: string;
  /** `loupe serve`'s token (see captureToken); sent with every call and the event stream. */
  token?: string;
  fetch?: typeof fetch;
  eventSource?: (url: string) => EventSourceLike;
}

/**
 * Web mode: POST {base}/api/<Method> with a JSON array of the arguments and
 * the token in the X-Loupe-Token header; events from one stream on
 * {base}/api/events (FetchEventSource, with the same header), shared by
 * every subscription and reconnected by itself.
 */
export class WebTransport implements Transport {
  readonly kind = 'web';
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly openEvents: (url: string) => EventSourceLike;
  private source: EventSourceLike | null = null;
  private readonly handlers = new Map<string, Set<(payload: unknown) => void>>();

  constructor(o: WebOptions = {}) {
    this.base = (o.base ?? '').replace(/\/+$/, '');
    const fetchFn: typeof fetch = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.fetchFn = fetchFn;
    this.headers = o.token ? { [TOKEN_HEADER]: o.token } : {};
    this.openEvents = o.eventSource ?? ((url) => new FetchEventSource(url, fetchFn, this.headers));
  }

  async call(method: Method, args: unknown[]): Promise<unknown> {
    const url = `${this.base}/api/${method}`;
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...this.headers },
        body: JSON.stringify(args),
      });
    } catch (err) {
      throw new ApiError('unreachable', `Cannot reach the Loupe backend (${method})`,
        'Start it with `loupe serve` and open the address it prints.', { cause: err });
    }
    const text = await res.text();
    if (!res.ok) {
      const e = toApiError(text, method);
      if (e.code === 'internal' && !text.trim().startsWith('{')) {
        throw new ApiError(res.status === 404 ? 'not_found' : 'internal', `${method}: HTTP ${res.status} ${text.trim()}`.trim(), '', { cause: text });
      }
      throw e;
    }
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new ApiError('internal', `${method}: the backend sent a reply that is not JSON`, '', { cause: err });
    }
  }

  on(name: string, handler: (payload: unknown) => void): Unsubscribe {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
      this.events().addEventListener(name, (e) => this.dispatch(name, e.data));
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  /** A browser gives no file paths on drop: nothing to subscribe to. */
  onFileDrop(): Unsubscribe {
    return () => undefined;
  }

  private events(): EventSourceLike {
    this.source ??= this.openEvents(`${this.base}/api/events`);
    return this.source;
  }

  private dispatch(name: string, data: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(data) as unknown;
    } catch {
      console.error(`loupe: event ${name} carried data that is not JSON`, data);
      return;
    }
    for (const h of [...(this.handlers.get(name) ?? [])]) h(payload);
  }
}

// ---- Choosing one --------------------------------------------------------------

let desktop: DesktopTransport | null = null;
let web: WebTransport | null = null;
let override: Transport | null = null;

/** True when the page runs inside the Loupe window, with the Go backend bound. */
export function isDesktop(): boolean {
  return typeof window !== 'undefined' && window.go?.app?.App !== undefined;
}

/**
 * transport picks the way to the backend at the time of the call: the
 * Wails bridge when the window injected it, else web mode at the page's
 * origin (or VITE_LOUPE_API when set, e.g. for `npm run dev`) with the
 * token the page was opened with.
 */
export function transport(): Transport {
  if (override) return override;
  if (isDesktop()) return (desktop ??= new DesktopTransport());
  const base = (import.meta.env?.VITE_LOUPE_API as string | undefined) ?? '';
  return (web ??= new WebTransport({ base, token: captureToken() }));
}

/** useTransport makes every call go through t (tests); null restores the choice. */
export function useTransport(t: Transport | null): void {
  override = t;
  desktop = null;
  web = null;
}
