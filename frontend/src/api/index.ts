// The typed API layer: the only module that talks to the Go backend. Each
// function calls the App method of the same name (PascalCase) through the
// transport chosen at run time — the Wails bridge inside the window, or web
// mode (`loupe serve`) over HTTP in a browser — and rejects with ApiError
// {code, message, hint}. Backend events arrive through onEvent.
import { ApiError } from './errors';
import { isDesktop, transport, type Method, type Unsubscribe } from './transport';
import type {
  AgentEvent,
  Chat,
  ChatSummary,
  Dataset,
  EventMap,
  EventName,
  ExportFormat,
  LoadReport,
  ModelInfo,
  Page,
  QueryResult,
  Report,
  SchemaNames,
  Settings,
  SettingsUpdate,
  Status,
  ToolDisplay,
} from './types';

export * from './types';
export { ApiError, isApiError, toApiError } from './errors';
export { isDesktop, METHODS, useTransport, WebTransport, DesktopTransport } from './transport';
export type { Transport, Unsubscribe, WebOptions } from './transport';

function call<T>(method: Method, ...args: unknown[]): Promise<T> {
  return transport().call(method, args) as Promise<T>;
}

// ---- Events ---------------------------------------------------------------------

/**
 * onEvent subscribes handler to a backend event (the same names and payloads
 * in the window and in web mode) and returns the function that unsubscribes.
 */
export function onEvent<K extends EventName>(name: K, handler: (payload: EventMap[K]) => void): Unsubscribe;
export function onEvent(name: string, handler: (payload: never) => void): Unsubscribe;
export function onEvent(name: string, handler: (payload: never) => void): Unsubscribe {
  return transport().on(name, handler as (payload: unknown) => void);
}

/**
 * onRunEvents subscribes to one run's events, in order, flattened out of
 * their batches. It unsubscribes by itself after run_finished.
 */
export function onRunEvents(runId: string, handler: (event: AgentEvent) => void): Unsubscribe {
  const off = onEvent('run:events', (batch) => {
    if (batch.runId !== runId) return;
    for (const e of batch.events) {
      handler(e);
      if (e.type === 'run_finished') off();
    }
  });
  return off;
}

/**
 * onFileDrop subscribes to files dropped onto the window, as absolute paths
 * (desktop only: a browser gives no paths, so in web mode it never fires).
 */
export function onFileDrop(handler: (paths: string[]) => void): Unsubscribe {
  return transport().onFileDrop(handler);
}

// ---- App ------------------------------------------------------------------------

/**
 * The version of the running Loupe binary, or null when there is no backend
 * to ask. Rejects with ApiError when the backend reports an error.
 */
export async function getVersion(): Promise<string | null> {
  try {
    return await call<string>('Version');
  } catch (err) {
    if (!isDesktop() && err instanceof ApiError && err.code === 'unreachable') return null;
    throw err;
  }
}

// ---- Data -----------------------------------------------------------------------

export const listDatasets = (): Promise<Dataset[]> => call('ListDatasets');
/** The native open dialog; [] when canceled, and always in web mode. */
export const chooseFiles = (): Promise<string[]> => call('ChooseFiles');
/** Loads each file (load:progress events, then datasets:changed); one failing does not stop the others. */
export const openFiles = (paths: string[]): Promise<LoadReport[]> => call('OpenFiles', paths);
export const recentFiles = (): Promise<string[]> => call('RecentFiles');
export const renameDataset = (name: string, newName: string): Promise<void> => call('RenameDataset', name, newName);
export const refreshDataset = (name: string): Promise<void> => call('RefreshDataset', name);
export const removeDataset = (name: string): Promise<void> => call('RemoveDataset', name);
/** The first rows, through the read-only guard. */
export const previewDataset = (name: string): Promise<QueryResult> => call('PreviewDataset', name);
/** The profile tool's display payload (kind "profile", data: ProfileData). */
export const profileDataset = (name: string): Promise<ToolDisplay> => call('ProfileDataset', name);
/** Loads the bundled sample dataset (a fictional shop's orders, customers and products). */
export const sampleDataset = (): Promise<LoadReport[]> => call('SampleDataset');
/** Example questions for the sample dataset. */
export const sampleQuestions = (): Promise<string[]> => call('SampleQuestions');

// ---- Query ----------------------------------------------------------------------

/** One statement through the agent's guard; errors carry code "refused" or "sql". */
export const runSQL = (sql: string): Promise<QueryResult> => call('RunSQL', sql);
/** Rows [offset, offset+limit) of a held result; limit ≤ 1000. */
export const page = (ref: string, offset: number, limit: number): Promise<Page> => call('Page', ref, offset, limit);
/** The native save dialog; the path written, or null when canceled. */
export const exportCSV = (ref: string): Promise<string | null> => call('ExportCSV', ref);
export const schemaNames = (): Promise<SchemaNames> => call('SchemaNames');

// ---- Chat -----------------------------------------------------------------------

export const listChats = (): Promise<ChatSummary[]> => call('ListChats');
export const newChat = (): Promise<ChatSummary> => call('NewChat');
export const renameChat = (id: string, name: string): Promise<void> => call('RenameChat', id, name);
export const deleteChat = (id: string): Promise<void> => call('DeleteChat', id);
export const getChat = (id: string): Promise<Chat> => call('GetChat', id);
/**
 * Starts a run; it streams run:events batches ending with run_finished. A
 * second ask in the same chat while one runs rejects with code "busy".
 */
export const ask = (chatId: string, question: string): Promise<{ runId: string }> => call('Ask', chatId, question);
/** Stops a run (or its report) within a second; the run still ends with run_finished. */
export const cancel = (runId: string): Promise<void> => call('Cancel', runId);
/** Writes the report of a finished run, streaming report:delta events. */
export const writeReport = (chatId: string, runId: string): Promise<Report> => call('WriteReport', chatId, runId);
/** The native save dialog; the path written, or null when canceled. */
export const exportReport = (runId: string, format: ExportFormat): Promise<string | null> => call('ExportReport', runId, format);

// ---- Settings and status -------------------------------------------------------------

export const getSettings = (): Promise<Settings> => call('GetSettings');
/** The key goes to the OS keychain and never comes back; omit apiKey to keep it, "" to forget it. */
export const saveSettings = (s: SettingsUpdate): Promise<void> => call('SaveSettings', s);
export const listModels = (): Promise<ModelInfo[]> => call('ListModels');
/** Downloads a model into Ollama (model:pull events); resolves when it is ready. */
export const pullModel = (name: string): Promise<void> => call('PullModel', name);
export const status = (): Promise<Status> => call('Status');
