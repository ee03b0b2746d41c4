// The typed API layer: the only module that talks to the Go backend. Each
// function calls the App method of the same name (PascalCase) through the
// transport chosen at run time — the Wails bridge inside the window, or web
// mode (`loupe serve`) over HTTP in a browser — and rejects with ApiError
// {code, message, hint}. Backend events arrive through onEvent.
import { ApiError } from './errors';
import { isDesktop, transport, type Method, type Unsubscribe } from './transport';
import type {
  AnswerFeedback,
  AgentEvent,
  AnswerSent,
  AskResult,
  ChartFormat,
  Chat,
  ChatHit,
  Check,
  ChatSummary,
  Connection,
  ConnectionCheck,
  ConnectionInput,
  ConnectionSchema,
  Dataset,
  DatasetSummary,
  EventMap,
  EventName,
  ExportFormat,
  ExportedFile,
  FolderInfo,
  HistoryEntry,
  LoadReport,
  MCPSetup,
  ModelInfo,
  Page,
  PrivacyLevel,
  PrivacyState,
  PrivateColumn,
  QueryResult,
  Report,
  ReportDiff,
  ReportVersion,
  ResultSummary,
  ResultView,
  SandboxBuilt,
  SchemaNames,
  Settings,
  SettingsUpdate,
  Status,
  TextOptions,
  ToolChart,
  ToolDisplay,
  ViewedResult,
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

/** The datasets' summaries (no columns: getDataset gives one whole), by name. */
export const listDatasets = (): Promise<DatasetSummary[]> => call('ListDatasets');
/** One dataset with its columns and their statistics. */
export const getDataset = (name: string): Promise<Dataset> => call('GetDataset', name);
/** The native open dialog; [] when canceled, and always in web mode. */
export const chooseFiles = (): Promise<string[]> => call('ChooseFiles');
/** Loads each file (load:progress events, then datasets:changed); one failing does not stop the others. */
export const openFiles = (paths: string[]): Promise<LoadReport[]> => call('OpenFiles', paths);
/** OpenFiles with the import options of text files. */
export const openFilesWith = (paths: string[], options: TextOptions): Promise<LoadReport[]> => call('OpenFilesWith', paths, options);
/** A text dataset's file loaded again with import options (kept for its refreshes). */
export const reloadDataset = (name: string, options: TextOptions): Promise<Dataset> => call('ReloadDataset', name, options);
/** The folders among paths (files and missing paths left out), for the choice of how to open each. */
export const foldersAmong = (paths: string[]): Promise<FolderInfo[]> => call('FoldersAmong', paths);
/** The native folder dialog; '' when canceled, and always in web mode. */
export const chooseFolder = (): Promise<string> => call('ChooseFolder');
/**
 * Loads a folder's data files, one dataset per file or (asOne) one dataset called name,
 * with load:progress events of the folder; cancelLoad(path) stops it.
 */
export const openFolder = (path: string, asOne: boolean, name: string): Promise<LoadReport[]> =>
  call('OpenFolder', path, asOne, name);
/** Stops the load of a file or folder being opened, if one is going. */
export const cancelLoad = (path: string): Promise<void> => call('CancelLoad', path);
export const recentFiles = (): Promise<string[]> => call('RecentFiles');
export const renameDataset = (name: string, newName: string): Promise<void> => call('RenameDataset', name, newName);
export const refreshDataset = (name: string): Promise<void> => call('RefreshDataset', name);
/**
 * Sets the user's note on a dataset and on the columns named in columns (an
 * empty text clears; columns left out keep theirs), then datasets:changed.
 * Rejects with not_found, or invalid for an unknown column or a note over
 * 2,000 characters.
 */
export const setDatasetNote = (name: string, note: string, columns: Record<string, string>): Promise<void> =>
  call('SetDatasetNote', name, note, columns);
export const removeDataset = (name: string): Promise<void> => call('RemoveDataset', name);
/** The dataset's columns and whether each is private (proposed by Loupe or set by the user). Rejects with not_found. */
export const privateColumns = (dataset: string): Promise<PrivateColumn[]> => call('PrivateColumns', dataset);
/** Marks a dataset's column private or not; returns it as it now stands. Rejects with not_found. */
export const setPrivateColumn = (dataset: string, column: string, isPrivate: boolean): Promise<PrivateColumn> =>
  call('SetPrivateColumn', dataset, column, isPrivate);
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
/** Stops every running console query (each rejects with code "canceled"); false when none ran. */
export const cancelSQL = (): Promise<boolean> => call('CancelSQL');
/**
 * Runs one statement as the query of the console tab `tab`; tabs run side by
 * side, and the tab's next query stops the one it runs. Kept in the query history.
 */
export const runConsoleSQL = (tab: string, sql: string): Promise<QueryResult> => call('RunConsoleSQL', tab, sql);
/** Stops the query running in the console tab `tab`; false when none ran there. */
export const cancelConsoleSQL = (tab: string): Promise<boolean> => call('CancelConsoleSQL', tab);
/** The console's query history, newest first, filtered by search (SQL or error); limit 1–500, 0 for 100. */
export const queryHistory = (search: string, limit = 0): Promise<HistoryEntry[]> => call('QueryHistory', search, limit);
/** Forgets the console's query history. */
export const clearQueryHistory = (): Promise<void> => call('ClearQueryHistory');
/** Rows [offset, offset+limit) of a held result; limit ≤ 1000. */
export const page = (ref: string, offset: number, limit: number): Promise<Page> => call('Page', ref, offset, limit);
/** The result ref sorted and filtered, held as a result of its own (app.ViewResult). */
export const viewResult = (ref: string, view: ResultView): Promise<ViewedResult> => call('ViewResult', ref, view);
/** Each column of the result ref summed up over its held rows (app.SummarizeResult). */
export const summarizeResult = (ref: string): Promise<ResultSummary> => call('SummarizeResult', ref);
/** The native save dialog; the path written, or null when canceled. */
export const exportCSV = (ref: string): Promise<string | null> => call('ExportCSV', ref);
/** exportResult saves a result's rows as an Excel workbook or a Parquet file (save dialog); null when canceled. */
export const exportResult = (ref: string, format: 'xlsx' | 'parquet'): Promise<string | null> => call('ExportResult', ref, format);
/** Every row of a dataset (not its preview) to a CSV named after it; null when canceled. */
export const exportDataset = (name: string): Promise<ExportedFile | null> => call('ExportDataset', name);
export const schemaNames = (): Promise<SchemaNames> => call('SchemaNames');

// ---- Chat -----------------------------------------------------------------------

export const listChats = (): Promise<ChatSummary[]> => call('ListChats');
export const newChat = (): Promise<ChatSummary> => call('NewChat');
export const renameChat = (id: string, name: string): Promise<void> => call('RenameChat', id, name);
export const deleteChat = (id: string): Promise<void> => call('DeleteChat', id);
export const getChat = (id: string): Promise<Chat> => call('GetChat', id);
/** Conversations whose name, questions or answers contain text (at most 50), newest first, with a snippet. */
export const searchChats = (text: string): Promise<ChatHit[]> => call('SearchChats', text);
/**
 * Starts a run; it streams run:events batches ending with run_finished. A
 * second ask in the same chat while one runs rejects with code "busy".
 */
export const ask = (chatId: string, question: string): Promise<AskResult> => call('Ask', chatId, question);
/**
 * Answers again the chat's last question, whose answer was stopped, cut off
 * by a crash, failed or hit a limit; the new run streams like ask's. Rejects
 * with code "busy" while the chat has a run going, "invalid" when the last
 * answer finished.
 */
export const retry = (chatId: string): Promise<{ runId: string }> => call('Retry', chatId);
/** Stops a run (or its report) within a second; the run still ends with run_finished. */
export const cancel = (runId: string): Promise<void> => call('Cancel', runId);
/** Writes the report of a finished run, streaming report:delta events. */
/** feedback gives the verdict on the answer of runId: up verifies it for later questions, down says why it is wrong. */
export const feedback = (chatId: string, runId: string, verdict: 'up' | 'down', note = ''): Promise<AnswerFeedback> =>
  call('Feedback', chatId, runId, verdict, note);
/** writeReport writes a report of the questions turns picks (numbers from 1); empty covers the whole conversation. */
export const writeReport = (chatId: string, runId: string, turns: number[] = []): Promise<Report> =>
  call('WriteReport', chatId, runId, turns);
/** The report last written from the run's answer, read from the conversation store (so it outlives a restart); null when none was. */
export const getReport = (chatId: string, runId: string): Promise<Report | null> => call('GetReport', chatId, runId);
/** Exports the report as format through the native save dialog; the path written, or null when canceled. The report is read from the store. */
export const exportReport = (runId: string, format: ExportFormat): Promise<string | null> => call('ExportReport', runId, format);
/**
 * refreshReport runs the queries of the run's report again on the current data (files changed on disk loaded
 * again), redraws its charts and keeps the result as a new version opening with "What changed".
 */
export const refreshReport = (chatId: string, runId: string): Promise<Report> => call('RefreshReport', chatId, runId);
/** Stops the refresh of the conversation's report within a second (refreshReport rejects with code "canceled"). */
export const cancelRefresh = (chatId: string): Promise<void> => call('CancelRefresh', chatId);
/** The versions of the conversation's report, oldest first. */
export const reportVersions = (chatId: string): Promise<ReportVersion[]> => call('ReportVersions', chatId);
/** Version n (from 1) of the conversation's report. */
export const getReportVersion = (chatId: string, n: number): Promise<Report> => call('GetReportVersion', chatId, n);
/** Compares versions a and b of the conversation's report. */
export const diffReportVersions = (chatId: string, a: number, b: number): Promise<ReportDiff> =>
  call('DiffReportVersions', chatId, a, b);

// ---- Settings and status -------------------------------------------------------------

export const getSettings = (): Promise<Settings> => call('GetSettings');
/** The key goes to the OS keychain and never comes back; omit apiKey to keep it, "" to forget it. */
export const saveSettings = (s: SettingsUpdate): Promise<void> => call('SaveSettings', s);
export const listModels = (): Promise<ModelInfo[]> => call('ListModels');
/** The models of the server a settings form names, saved or not (its address, its typed key). */
export const listModelsFor = (s: SettingsUpdate): Promise<ModelInfo[]> => call('ListModelsFor', s);
/** Checks the server and model a settings form names, saving nothing. */
export const testSettings = (s: SettingsUpdate): Promise<Check> => call('TestSettings', s);
/** Whether Loupe is set up as an MCP server, each host's snippet, and the recent MCP calls. */
export const mcpSetup = (): Promise<MCPSetup> => call('MCPSetup');
/** Downloads a model into Ollama (model:pull events); resolves when it is ready. */
export const pullModel = (name: string): Promise<void> => call('PullModel', name);
export const status = (): Promise<Status> => call('Status');

// ---- Privacy and the outbox --------------------------------------------------------

/** The privacy level in force for the model server the settings name. */
export const getPrivacy = (): Promise<PrivacyState> => call('GetPrivacy');
/** Chooses the privacy level for the model server the settings name. */
export const setPrivacy = (level: PrivacyLevel): Promise<void> => call('SetPrivacy', level);
/** What the answer of a run sent to its model server: the level in force and each request. */
export const sentOf = (runId: string): Promise<AnswerSent> => call('SentOf', runId);

// ---- Connections ----------------------------------------------------------------

/** The saved database connections, by name, without passwords. */
export const listConnections = (): Promise<Connection[]> => call('ListConnections');
/**
 * Saves a connection (replacing the one named input.previous); the password
 * goes to the OS keychain and never comes back. Rejects with code "invalid"
 * naming the field to fix. Does not test it: testConnectionInput does.
 */
export const saveConnection = (input: ConnectionInput): Promise<Connection> => call('SaveConnection', input);
export const removeConnection = (name: string): Promise<void> => call('RemoveConnection', name);
/**
 * Connects to a saved connection and reads its schema. A failure rejects with
 * a code per cause (db_unreachable, db_auth, db_unknown_database, db_no_access,
 * db_tls, db_no_file) and a hint saying what to do.
 */
export const testConnection = (name: string): Promise<ConnectionCheck> => call('TestConnection', name);
/** testConnection for a connection not saved yet (the dialog's fields). */
export const testConnectionInput = (input: ConnectionInput): Promise<ConnectionCheck> => call('TestConnectionInput', input);
/** The tables and views of a connection, with the user's notes; refresh reads the schema again. */
export const connectionTables = (name: string, refresh = false): Promise<ConnectionSchema> => call('ConnectionTables', name, refresh);
/**
 * Sets the user's note on a connection's table (named as connectionTables
 * names it) and on the columns named in columns (an empty text clears;
 * columns left out keep theirs), as setDatasetNote does for a dataset. Rejects
 * with not_found for an unknown connection or table, invalid for an unknown
 * column or a note over 2,000 characters, or a db_* code when the database
 * cannot be reached.
 */
export const setConnectionNote = (conn: string, table: string, note: string, columns: Record<string, string>): Promise<void> =>
  call('SetConnectionNote', conn, table, note, columns);
/** privateColumns for a connection's table (named as connectionTables names it). */
export const connectionPrivateColumns = (conn: string, table: string): Promise<PrivateColumn[]> =>
  call('ConnectionPrivateColumns', conn, table);
/** setPrivateColumn for a connection's table; kept beside the connection's notes. */
export const setConnectionPrivateColumn = (conn: string, table: string, column: string, isPrivate: boolean): Promise<PrivateColumn> =>
  call('SetConnectionPrivateColumn', conn, table, column, isPrivate);
/**
 * Runs sql on the connection and stores the result in the workspace as
 * table (at most rowLimit rows, 0 for the default); import:progress events,
 * then datasets:changed. replace overwrites a dataset of that name.
 */
export const importQuery = (name: string, sql: string, table: string, rowLimit: number, replace = false): Promise<Dataset> =>
  call('ImportQuery', name, sql, table, rowLimit, replace);
/** Stops the import into table; the workspace is left as it was. */
export const cancelImport = (table: string): Promise<void> => call('CancelImport', table);
/** Starts a conversation about a connection: its questions run on that database. */
export const newConnectionChat = (name: string): Promise<ChatSummary> => call('NewConnectionChat', name);
/**
 * Builds the Python sandbox's Docker image (sandbox:build events); resolves
 * when it is ready. offline builds from the machine's apt mirror (Linux, root).
 * Rejects with code "busy" while a build runs, "canceled" when canceled,
 * "docker" when Docker cannot be used or the recipe failed.
 */
export const buildSandbox = (offline = false): Promise<SandboxBuilt> => call('BuildSandbox', offline);
/** Stops the sandbox build going on, if any. */
export const cancelSandboxBuild = (): Promise<void> => call('CancelSandboxBuild');

// ---- Charts ---------------------------------------------------------------------

/**
 * Saves a chart image through the native save dialog (desktop): data is the
 * PNG in base64 (or a data: URL) or the SVG text. The path written, or null
 * when canceled. In a browser the chart is downloaded instead (ChartView).
 */
/**
 * Changes the chart call callId of run runId drew to spec (Vega-Lite JSON text,
 * without data: the chart keeps its rows) and keeps the change with the answer.
 * The spec is checked as the model's are; a problem is an "invalid" ApiError.
 */
export const editChart = (chatId: string, runId: string, callId: string, spec: string, title: string): Promise<ToolChart> =>
  call('EditChart', chatId, runId, callId, spec, title);
/** Forgets the user's edit of a chart: the answer shows the chart it was drawn with again. */
export const resetChart = (chatId: string, runId: string, callId: string): Promise<ToolChart> => call('ResetChart', chatId, runId, callId);
export const saveChart = (name: string, format: ChartFormat, data: string): Promise<string | null> =>
  call('SaveChart', name, format, data);
/**
 * Records in the app's log how long the page took to draw a chart of rows
 * data rows (vega-embed's parse, dataflow and draw), so that render times in
 * the real window can be read there.
 */
export const chartRendered = (rows: number, renderer: 'svg' | 'canvas', ms: number): Promise<void> =>
  call('ChartRendered', rows, renderer, ms);

// ---- Links ----------------------------------------------------------------------

/**
 * Opens a web or mail address in the system browser (the window: the Wails
 * runtime's BrowserOpenURL); in a browser, in a new tab without opener or
 * referrer. The caller has already shown the address and had it confirmed.
 */
export function openInBrowser(url: string): void {
  if (isDesktop() && window.runtime?.BrowserOpenURL) {
    window.runtime.BrowserOpenURL(url);
    return;
  }
  window.open(url, '_blank', 'noopener,noreferrer');
}
