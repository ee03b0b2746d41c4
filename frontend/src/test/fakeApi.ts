// A stand-in for the api module in component tests: every function is a
// vi.fn with a plain default, and emit() pushes backend events to whatever
// subscribed. Use it with
//
//   vi.mock('../api', async () => (await import('../test/fakeApi')).apiModule());
//
// (the path relative to the test file), then import { fake, emit, resetFake }.
import { vi } from 'vitest';
import runChart from './fixtures/run-chart.jsonl?raw';
import runQuestion from './fixtures/run-question.jsonl?raw';
import type * as Api from '../api';
import type { AgentEvent, Dataset, DatasetSummary } from '../api';

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
    getVersion: vi.fn<typeof Api.getVersion>(async () => 'test'),
    listDatasets: vi.fn<typeof Api.listDatasets>(async (): Promise<DatasetSummary[]> => []),
    getDataset: vi.fn<typeof Api.getDataset>(async (name: string) => {
      const d = made.get(name);
      if (!d) throw new Error(`fake getDataset: no dataset ${name} was made`);
      return d;
    }),
    chooseFiles: vi.fn<typeof Api.chooseFiles>(async (): Promise<string[]> => []),
    openFiles: vi.fn<typeof Api.openFiles>(async (paths: string[]) => paths.map((file) => ({ file, datasets: [] }))),
    recentFiles: vi.fn<typeof Api.recentFiles>(async (): Promise<string[]> => []),
    foldersAmong: vi.fn<typeof Api.foldersAmong>(async () => []),
    chooseFolder: vi.fn<typeof Api.chooseFolder>(async () => ''),
    openFolder: vi.fn<typeof Api.openFolder>(async (path: string) => [{ file: path, datasets: [] }]),
    cancelLoad: vi.fn<typeof Api.cancelLoad>(async () => undefined),
    renameDataset: vi.fn<typeof Api.renameDataset>(async () => undefined),
    refreshDataset: vi.fn<typeof Api.refreshDataset>(async () => undefined),
    setDatasetNote: vi.fn<typeof Api.setDatasetNote>(async () => undefined),
    setConnectionNote: vi.fn<typeof Api.setConnectionNote>(async () => undefined),
    privateColumns: vi.fn<typeof Api.privateColumns>(async () => []),
    setPrivateColumn: vi.fn<typeof Api.setPrivateColumn>(),
    connectionPrivateColumns: vi.fn<typeof Api.connectionPrivateColumns>(async () => []),
    setConnectionPrivateColumn: vi.fn<typeof Api.setConnectionPrivateColumn>(),
    removeDataset: vi.fn<typeof Api.removeDataset>(async () => undefined),
    previewDataset: vi.fn<typeof Api.previewDataset>(),
    profileDataset: vi.fn<typeof Api.profileDataset>(),
    sampleDataset: vi.fn<typeof Api.sampleDataset>(async () => []),
    sampleQuestions: vi.fn<typeof Api.sampleQuestions>(async () => []),
    runSQL: vi.fn<typeof Api.runSQL>(),
    runConsoleSQL: vi.fn<typeof Api.runConsoleSQL>(),
    cancelConsoleSQL: vi.fn<typeof Api.cancelConsoleSQL>(async () => true),
    queryHistory: vi.fn<typeof Api.queryHistory>(async () => []),
    clearQueryHistory: vi.fn<typeof Api.clearQueryHistory>(async () => undefined),
    searchChats: vi.fn<typeof Api.searchChats>(async () => []),
    page: vi.fn<typeof Api.page>(async (_ref: string, offset: number, _limit: number) => ({ offset, rows: [] as unknown[][] })),
    viewResult: vi.fn<typeof Api.viewResult>(),
    summarizeResult: vi.fn<typeof Api.summarizeResult>(),
    editChart: vi.fn<typeof Api.editChart>(),
    resetChart: vi.fn<typeof Api.resetChart>(),
    exportCSV: vi.fn<typeof Api.exportCSV>(async () => null),
    exportResult: vi.fn<typeof Api.exportResult>(async () => null),
    schemaNames: vi.fn<typeof Api.schemaNames>(async () => ({ tables: [] as { name: string; columns: string[] }[] })),
    listChats: vi.fn<typeof Api.listChats>(async () => []),
    newChat: vi.fn<typeof Api.newChat>(async () => ({ id: 'chat1', name: 'New chat', created: new Date().toISOString(), updated: new Date().toISOString() })),
    renameChat: vi.fn<typeof Api.renameChat>(async () => undefined),
    deleteChat: vi.fn<typeof Api.deleteChat>(async () => undefined),
    getChat: vi.fn<typeof Api.getChat>(),
    ask: vi.fn<typeof Api.ask>(async () => ({ runId: 'run1' })),
    cancel: vi.fn<typeof Api.cancel>(async () => undefined),
    retry: vi.fn<typeof Api.retry>(async () => ({ runId: 'run-retry' })),
    buildSandbox: vi.fn<typeof Api.buildSandbox>(),
    cancelSandboxBuild: vi.fn<typeof Api.cancelSandboxBuild>(async () => undefined),
    saveChart: vi.fn<typeof Api.saveChart>(async () => null),
    chartRendered: vi.fn<typeof Api.chartRendered>(async () => undefined),
    openInBrowser: vi.fn<typeof Api.openInBrowser>(() => undefined),
    writeReport: vi.fn<typeof Api.writeReport>(),
    feedback: vi.fn<typeof Api.feedback>(),
    getReport: vi.fn<typeof Api.getReport>(async () => null),
    exportReport: vi.fn<typeof Api.exportReport>(async () => null),
    refreshReport: vi.fn<typeof Api.refreshReport>(),
    cancelRefresh: vi.fn<typeof Api.cancelRefresh>(async () => undefined),
    reportVersions: vi.fn<typeof Api.reportVersions>(async () => []),
    getReportVersion: vi.fn<typeof Api.getReportVersion>(),
    diffReportVersions: vi.fn<typeof Api.diffReportVersions>(),
    getSettings: vi.fn<typeof Api.getSettings>(async (): Promise<Api.Settings> => ({
      provider: 'ollama' as const,
      model: 'qwen3:8b',
      ollamaURL: 'http://127.0.0.1:11434',
      openaiBaseURL: '',
      hasAPIKey: false,
      maxSteps: 15,
      timeoutSeconds: 300,
      theme: 'system' as const,
    })),
    saveSettings: vi.fn<typeof Api.saveSettings>(async () => undefined),
    getPrivacy: vi.fn<typeof Api.getPrivacy>(async (): Promise<Api.PrivacyState> => ({
      level: 'open',
      chosen: false,
      describe: 'everything the analysis reads: samples, frequent values, profiles and result rows',
      host: '127.0.0.1:11434',
      local: true,
      levels: [
        { level: 'open', describe: 'everything the analysis reads: samples, frequent values, profiles and result rows' },
        { level: 'masked', describe: 'as open, but values of private columns are replaced by placeholders such as <email_3>' },
        { level: 'schema', describe: 'names, types, notes, row counts and the shape of each result; never a cell value' },
      ],
    })),
    setPrivacy: vi.fn<typeof Api.setPrivacy>(async () => undefined),
    sentOf: vi.fn<typeof Api.sentOf>(async (): Promise<Api.AnswerSent> => ({
      messageId: 'msg1',
      known: true,
      level: 'open',
      describe: '',
      server: '127.0.0.1:11434',
      local: true,
      requests: [],
      bytes: 0,
      summary: 'Nothing left this machine: the model runs on 127.0.0.1:11434.',
    })),
    listModels: vi.fn<typeof Api.listModels>(async () => []),
    listModelsFor: vi.fn<typeof Api.listModelsFor>(async () => []),
    testSettings: vi.fn<typeof Api.testSettings>(async () => ({ ok: true, message: 'ok', hint: '' })),
    mcpSetup: vi.fn<typeof Api.mcpSetup>(async (): Promise<Api.MCPSetup> => ({
      binary: '/usr/bin/loupe',
      setUp: false,
      hosts: [],
      calls: [],
      callLog: '/home/u/.config/loupe/mcp-calls.jsonl',
    })),
    pullModel: vi.fn<typeof Api.pullModel>(async () => undefined),
    status: vi.fn<typeof Api.status>(async () => ({
      model: { ok: true, message: 'qwen3:8b is ready', hint: '' },
      docker: { ok: true, message: 'Docker is available', hint: '' },
    })),
    listConnections: vi.fn<typeof Api.listConnections>(async () => []),
    saveConnection: vi.fn<typeof Api.saveConnection>(async (input: Api.ConnectionInput) => ({
      name: input.name,
      kind: input.kind ?? 'sqlite',
      ...(input.path !== undefined ? { path: input.path } : {}),
      url: `${input.kind ?? 'sqlite'}://${input.host ?? ''}/${input.database ?? input.path ?? ''}`,
      hasPassword: (input.password ?? '') !== '',
    })),
    removeConnection: vi.fn<typeof Api.removeConnection>(async () => undefined),
    testConnection: vi.fn<typeof Api.testConnection>(),
    testConnectionInput: vi.fn<typeof Api.testConnectionInput>(),
    connectionTables: vi.fn<typeof Api.connectionTables>(async (name: string) => ({ name, dialect: 'SQLite', version: '3.46', database: name, tables: [] })),
    importQuery: vi.fn<typeof Api.importQuery>(),
    cancelImport: vi.fn<typeof Api.cancelImport>(async () => undefined),
    newConnectionChat: vi.fn<typeof Api.newConnectionChat>(async (name: string) => ({
      id: 'chat-conn',
      name: '',
      created: new Date().toISOString(),
      updated: new Date().toISOString(),
      connection: name,
    })),
  };
}

/** The fake functions; tests change their behaviour with mockResolvedValue etc. */
export const fake = build();

/** resetFake puts every function back to its default and drops subscribers. */
export function resetFake(): void {
  handlers.clear();
  made.clear();
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
  const text = name === 'run-chart' ? runChart : runQuestion;
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AgentEvent);
}

/** Datasets made by dataset(), by name: what the fake getDataset returns. */
const made = new Map<string, Dataset & DatasetSummary>();

/**
 * A dataset, whole (as getDataset returns it) and as listDatasets lists it
 * (columnCount): the fake getDataset returns the last one made of a name.
 */
export function dataset(name: string, over: Partial<Dataset> = {}): Dataset & DatasetSummary {
  const d = {
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
  const both = { ...d, columnCount: d.columns.length };
  made.set(name, both);
  return both;
}
