// A stand-in for the api module in component tests: every function is a
// vi.fn with a plain default, and emit() pushes backend events to whatever
// subscribed. Use it with
//
//   vi.mock('../api', async () => (await import('../test/fakeApi')).apiModule());
//
// (the path relative to the test file), then import { fake, emit, resetFake }.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { AgentEvent, Dataset } from '../api';

type Handler = (payload: never) => void;
const handlers = new Map<string, Set<Handler>>();

/** emit delivers a backend event to its subscribers, as the transport would. */
export function emit(name: string, payload: unknown): void {
  for (const h of handlers.get(name) ?? []) (h as (p: unknown) => void)(payload);
}

export class FakeApiError extends Error {
  constructor(
    public code: string,
    message: string,
    public hint = '',
  ) {
    super(message);
  }
}

function build() {
  return {
    isDesktop: vi.fn(() => false),
    onEvent: vi.fn((name: string, h: Handler) => {
      if (!handlers.has(name)) handlers.set(name, new Set());
      handlers.get(name)!.add(h);
      return () => handlers.get(name)?.delete(h);
    }),
    onFileDrop: vi.fn((h: (paths: string[]) => void) => {
      const wrapped = ((paths: string[]) => h(paths)) as Handler;
      if (!handlers.has('filedrop')) handlers.set('filedrop', new Set());
      handlers.get('filedrop')!.add(wrapped);
      return () => handlers.get('filedrop')?.delete(wrapped);
    }),
    getVersion: vi.fn(async () => 'test'),
    listDatasets: vi.fn(async (): Promise<Dataset[]> => []),
    chooseFiles: vi.fn(async (): Promise<string[]> => []),
    openFiles: vi.fn(async (paths: string[]) => paths.map((file) => ({ file, datasets: [] }))),
    recentFiles: vi.fn(async (): Promise<string[]> => []),
    renameDataset: vi.fn(async () => undefined),
    refreshDataset: vi.fn(async () => undefined),
    removeDataset: vi.fn(async () => undefined),
    previewDataset: vi.fn(),
    profileDataset: vi.fn(),
    sampleDataset: vi.fn(async () => []),
    runSQL: vi.fn(),
    page: vi.fn(async (_ref: string, offset: number, _limit: number) => ({ offset, rows: [] as unknown[][] })),
    exportCSV: vi.fn(async () => null),
    schemaNames: vi.fn(async () => ({ tables: [] as { name: string; columns: string[] }[] })),
    listChats: vi.fn(async () => []),
    newChat: vi.fn(async () => ({ id: 'chat1', name: 'New chat', created: new Date().toISOString(), updated: new Date().toISOString() })),
    renameChat: vi.fn(async () => undefined),
    deleteChat: vi.fn(async () => undefined),
    getChat: vi.fn(),
    ask: vi.fn(async () => ({ runId: 'run1' })),
    cancel: vi.fn(async () => undefined),
    writeReport: vi.fn(),
    exportReport: vi.fn(async () => null),
    getSettings: vi.fn(async () => ({
      provider: 'ollama' as const,
      model: 'qwen3:8b',
      ollamaURL: 'http://127.0.0.1:11434',
      openaiBaseURL: '',
      hasAPIKey: false,
      maxSteps: 15,
      timeoutSeconds: 300,
      theme: 'system' as const,
    })),
    saveSettings: vi.fn(async () => undefined),
    listModels: vi.fn(async () => []),
    pullModel: vi.fn(async () => undefined),
    status: vi.fn(async () => ({
      model: { ok: true, message: 'qwen3:8b is ready', hint: '' },
      docker: { ok: true, message: 'Docker is available', hint: '' },
    })),
  };
}

/** The fake functions; tests change their behaviour with mockResolvedValue etc. */
export const fake = build();

/** resetFake puts every function back to its default and drops subscribers. */
export function resetFake(): void {
  handlers.clear();
  Object.assign(fake, build());
}

/** apiModule is the module vi.mock installs: it forwards to fake at call time. */
export function apiModule() {
  const mod: Record<string, unknown> = { ApiError: FakeApiError };
  for (const name of Object.keys(fake)) {
    mod[name] = (...args: unknown[]) => (fake as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
  }
  return mod;
}

/** A recorded run (`loupe ask --json` against the fake model) from fixtures/. */
export function recordedRun(name: 'run-chart' | 'run-question'): AgentEvent[] {
  const text = readFileSync(join(__dirname, 'fixtures', `${name}.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AgentEvent);
}

/** A dataset as listDatasets returns it. */
export function dataset(name: string, over: Partial<Dataset> = {}): Dataset {
  return {
    name,
    kind: 'csv',
    source: `/data/${name}.csv`,
    rows: 1000,
    columns: [
      { name: 'region', type: 'VARCHAR', nulls: 0, distinct: 4 },
      { name: 'amount', type: 'DOUBLE', nulls: 0, distinct: 900 },
      { name: 'day', type: 'DATE', nulls: 0, distinct: 365 },
    ],
    sizeBytes: 40960,
    loadedAt: new Date().toISOString(),
    warnings: [],
    storage: 'table',
    ...over,
  } as Dataset;
}
