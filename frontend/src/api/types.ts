// The shapes the Go backend sends, exactly as its JSON: the app façade's
// DTOs (app/*.go, camelCase) and the agent's events, outcome and tool
// displays (agent/events.go, agent/outcome.go, tools/tools.go, snake_case).
// Timestamps are RFC 3339 strings.

// ---- Data -----------------------------------------------------------------

/** A frequent value of a column and how often it occurs. */
export interface TopValue {
  value: string;
  count: number;
}

/** A dataset's column and the statistics computed when it was loaded. */
export interface DatasetColumn {
  name: string;
  type: string;
  nulls: number;
  /** Approximate. */
  distinct: number;
  min?: string;
  max?: string;
  top?: TopValue[];
  /** The user's note on the column. */
  note?: string;
  /** The source's own comment on the column (a DuckDB file's COMMENT ON). */
  comment?: string;
}

/** A loaded dataset (a table or view in the workspace). */
export interface Dataset {
  name: string;
  /** csv, tsv, parquet, json, xlsx, duckdb, sqlite */
  kind: string;
  /** Absolute path of the user's file. */
  source: string;
  /** Sheet or table inside the file. */
  part?: string;
  rows: number;
  columns: DatasetColumn[];
  sizeBytes: number;
  loadedAt: string;
  warnings: string[];
  /** "table" (copied in) or "view" (reads the file). */
  storage: string;
  /** The user's note on the dataset (see setDatasetNote). */
  note?: string;
  /** The source's own comment on the table, shown when there is no note. */
  comment?: string;
  /** The import options a text file was loaded with; absent when all were detected. */
  text?: TextOptions;
}

/**
 * How a CSV or TSV file is read, where the user says rather than Loupe
 * detects. Empty strings (and 0 skipRows) are detected.
 */
export interface TextOptions {
  /** One character; "\t" is a tab. */
  delimiter: string;
  /** "," or ".". */
  decimal: string;
  /** "yes" (the first row names the columns) or "no". */
  header: string;
  /** "utf-8", "latin-1" or "utf-16". */
  encoding: string;
  /** Lines before the header (a title, an export note). */
  skipRows: number;
}

/** A load:progress event. percent is -1 when unknown. */
export interface LoadProgress {
  file: string;
  table?: string;
  phase: 'reading' | 'profiling' | 'done' | (string & {});
  percent: number;
  rows: number;
  bytes: number;
  totalBytes: number;
}

/** What loading one file gave. */
/** A dataset as a list shows it, read without its record; listDatasets and getDataset give the whole. */
export interface DatasetSummary {
  name: string;
  kind: string;
  source: string;
  part?: string;
  rows: number;
  /** How many columns the dataset has. */
  columnCount: number;
  sizeBytes: number;
  loadedAt: string;
  warnings: string[];
  storage: string;
  note?: string;
  comment?: string;
}

export interface LoadReport {
  file: string;
  datasets?: Dataset[];
  error?: ApiErrorShape;
}

/** A folder among opened paths: opened as one dataset per file, or as one dataset. */
export interface FolderInfo {
  path: string;
  /** Data files directly inside (subfolders are not read). */
  files: number;
  /** Other entries, left out. */
  skipped: number;
  /** The folder's name: the one dataset's, unless changed. */
  name: string;
  /** Why the folder cannot be opened at all. */
  error?: ApiErrorShape;
}

// ---- Query ----------------------------------------------------------------

export interface Column {
  name: string;
  type: string;
}

/** A window of a held result. */
export interface Page {
  offset: number;
  rows: unknown[][];
}

/**
 * A query's result: the first page and a reference to page through the rest.
 * rows is the total the query produced; kept of them are held.
 */
export interface QueryResult {
  ref: string;
  columns: Column[];
  rows: number;
  kept: number;
  truncated: boolean;
  elapsedMs: number;
  page: Page;
}

/** Sorts a result by one column. */
export interface SortOrder {
  column: string;
  desc: boolean;
}

/** A filter op: text contains (any type), or a comparison on a numeric column. */
export type FilterOp = 'contains' | '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Keeps the rows whose column passes op with value; a NULL passes none. */
export interface ColumnFilter {
  column: string;
  op: FilterOp;
  value: string;
}

/** How the grid asks for a result sorted and filtered. */
export interface ResultView {
  sort: SortOrder[] | null;
  filters: ColumnFilter[] | null;
}

/**
 * A sorted and filtered view of a result, held as a result of its own.
 * of: rows the viewed result's query produced. heldOnly: the view covers only
 * the rows held (the result was cut and its query cannot run again here).
 * fromQuery: the query ran again in DuckDB to make it.
 */
export interface ViewedResult {
  result: QueryResult;
  of: number;
  heldOnly: boolean;
  fromQuery: boolean;
}

/** One column summed up: values, NULLs, distinct values, and for numbers min, max, mean. */
export interface ColumnSummary {
  column: string;
  count: number;
  nulls: number;
  distinct: number;
  min: number | null;
  max: number | null;
  mean: number | null;
}

/** Every column summed up over `rows` rows held of a result of `total` (partial when fewer). */
export interface ResultSummary {
  rows: number;
  total: number;
  partial: boolean;
  columns: ColumnSummary[] | null;
}

/** A file an export wrote and how many rows it holds. */
export interface ExportedFile {
  path: string;
  rows: number;
}

/**
 * A query run from the SQL console, as its history keeps it: done (rows
 * counts its rows), failed (error says why) or canceled.
 */
export interface HistoryEntry {
  id: string;
  sql: string;
  /** When it started (RFC 3339). */
  at: string;
  durationMs: number;
  outcome: 'done' | 'failed' | 'canceled';
  rows: number;
  error?: string;
}

/** A table's name and its columns' names (for completion). */
export interface SchemaTable {
  name: string;
  columns: string[];
}

export interface SchemaNames {
  tables: SchemaTable[];
}

// ---- Tool displays (tools/tools.go) ---------------------------------------

export type DisplayKind = 'text' | 'table' | 'chart' | 'question' | 'profile' | 'verdict' | 'error';

/** A query result held behind ref; preview holds the first rows. */
export interface ToolTable {
  ref: string;
  columns: Column[];
  /** Total rows of the query. */
  rows: number;
  /** Rows held behind ref (≤ rows). */
  kept: number;
  truncated: boolean;
  preview: unknown[][];
}

/** A Vega-Lite chart with its data inlined. */
export interface ToolChart {
  title: string;
  /** The Vega-Lite spec, data.values injected. */
  spec: Record<string, unknown>;
  mark: string;
  rows: number;
  /** The user changed the chart by hand; the chart drawn with the answer is kept (resetChart). */
  edited?: boolean;
}

export interface Question {
  text: string;
  options?: string[];
}

/** What the UI shows for a tool's result; kind says which fields are set. */
export interface ToolDisplay {
  kind: DisplayKind;
  text?: string;
  /** The query behind a table, chart or verdict. */
  sql?: string;
  table?: ToolTable;
  chart?: ToolChart;
  question?: Question;
  /** Tool-specific: ProfileData for "profile", VerdictData for "verdict". */
  data?: unknown;
}

/** profile_data's display data (tools/profile/stats.go). */
export interface ProfileData {
  table: string;
  rows: number;
  approx: boolean;
  columns: ProfileColumn[];
  elapsed_ms: number;
}

export interface ProfileColumn {
  name: string;
  type: string;
  kind: 'number' | 'time' | 'text' | 'bool' | 'other';
  nulls: number;
  null_pct: number;
  distinct: number;
  distinct_approx?: boolean;
  min?: unknown;
  max?: unknown;
  mean?: number;
  stddev?: number;
  quantiles?: { p05: number; p25: number; median: number; p75: number; p95: number };
  negatives?: number;
  zeros?: number;
  outliers?: { count: number; low: number; high: number };
  trues?: number;
  text?: { min_len: number; max_len: number; empty: number; padded: number };
  top?: TopValue[];
  flags?: { code: string; message: string }[];
}

/** validate_finding's display data (tools/validate/checks.go). */
export interface VerdictData {
  finding: string;
  verdict: string;
  reasons: string[];
  rows: number;
  comparison?: {
    group: string;
    measure: string;
    a: string;
    b: string;
    value_a: number;
    value_b: number;
    /** Rows behind each group, when known. */
    rows_a?: number;
    rows_b?: number;
  };
  checks: {
    name: string;
    status: string;
    detail: string;
    by?: string;
    subgroups?: { value: string; value_a: number; value_b: number; rows_a: number; rows_b: number; holds: boolean }[];
  }[];
  not_checked: string[];
}

// ---- Agent events and outcome (agent/events.go, agent/outcome.go) ---------

export type AgentEventType =
  | 'run_started'
  | 'step_started'
  | 'text_delta'
  | 'thinking_delta'
  | 'text_reset'
  | 'tool_call'
  | 'tool_result'
  | 'chart'
  | 'question'
  | 'usage'
  /** An answer's numbers checked against the run's results (numbers: NumbersEvent). */
  | 'numbers_checked'
  | 'run_finished';

export type RunStatus = 'done' | 'needs_input' | 'canceled' | 'failed' | 'limit';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * How the trace shows a tool's calls (tools.View, from the tool's Spec).
 * doing/did may hold "{arg}" inside an optional "[…]" part.
 */
export interface ToolView {
  icon?: string;
  doing?: string;
  did?: string;
}

/** A tool call as the model made it; arguments as the model wrote them. */
export interface CallEvent {
  id: string;
  name: string;
  arguments: unknown;
  /** The tool's view; absent for an unknown tool or a call recorded before calls carried it. */
  view?: ToolView;
}

export interface ResultEvent {
  call_id: string;
  name: string;
  /** Evidence reference ("q2", "c1") findings cite. */
  ref?: string;
  summary: string;
  failed?: boolean;
  /** Not run: canceled, limit, or the turn ended. */
  skipped?: boolean;
  display: ToolDisplay;
  duration_ms: number;
}

export interface ChartEvent {
  call_id: string;
  ref: string;
  sql?: string;
  chart: ToolChart;
}

/** One thing that happened in a run; type says which fields are set. */
export interface AgentEvent {
  type: AgentEventType;
  run_id: string;
  chat_id?: string;
  step?: number;
  at: string;
  text?: string;
  call?: CallEvent;
  result?: ResultEvent;
  chart?: ChartEvent;
  question?: Question;
  usage?: Usage;
  finished?: Outcome;
  numbers?: NumbersEvent;
}

/** The check of one answer's numbers; challenged: the model was asked to back or withdraw them. */
export interface NumbersEvent {
  checks: NumberCheck[];
  challenged?: boolean;
}

export interface Finding {
  text: string;
  /** Refs into Outcome.evidence. */
  evidence?: string[];
}

export interface Evidence {
  ref: string;
  call_id: string;
  tool: string;
  purpose?: string;
  sql?: string;
  summary: string;
  table?: ToolTable;
  chart?: ToolChart;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A message of the conversation (agent/llm). */
export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string;
  thinking?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface StepTime {
  step: number;
  model_ms: number;
  tools_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ToolTime {
  step: number;
  call_id: string;
  tool: string;
  ms: number;
  failed?: boolean;
}

export interface Meta {
  steps: number;
  /** Numbers of the answer no tool result of the run backs; marked "[unverified]" in its text. */
  unverified?: number;
  /** The model was asked once to back or withdraw numbers. */
  challenged?: boolean;
  tool_calls: number;
  /** Tool calls recovered from the reply's text (a model that wrote them instead of calling). */
  text_calls?: number;
  /** The model took no native tools: its calls were read from its text. */
  text_protocol?: boolean;
  /** Messages compacted to fit the model's context. */
  compacted?: number;
  /** Run at the schema privacy level: the model saw no value. */
  schema_only?: boolean;
  failed_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  duration_ms: number;
  prompt_chars: number;
  prompt_tokens_estimate: number;
  step_times?: StepTime[];
  tool_times?: ToolTime[];
  model?: string;
  provider?: string;
  /** How the prompt was made, in words (e.g. that table search fell back to text alone). */
  notes?: string[];
}

/** One number of an answer and what backs it ("q1", "question"); no source: nothing does. */
export interface NumberCheck {
  number: { text: string; value: number; percent?: boolean };
  source?: string;
}

/** What a run produced; complete whatever the status. */
export interface Outcome {
  run_id: string;
  status: RunStatus;
  /** Why a run stopped early, in plain words with what to do. */
  reason?: string;
  answer?: string;
  /** At the schema level, the answer as the model wrote it, with value references where answer has the values. */
  written?: string;
  summary?: string;
  findings?: Finding[];
  /** The answer's numbers, checked against the run's tool results. */
  numbers?: NumberCheck[];
  /** needs_input only. */
  question?: Question;
  evidence?: Evidence[];
  transcript?: Message[];
  meta: Meta;
}

// ---- Chat -------------------------------------------------------------------

/** What ask returns at once; the run's events follow as run:events. */
export interface AskResult {
  runId: string;
}

export interface ChatSummary {
  id: string;
  name: string;
  created: string;
  updated: string;
  /** The saved database connection the conversation asks about; absent for the workspace. */
  connection?: string;
}

/** One question and the run that answered it (its events as streamed). */
export interface Turn {
  question: string;
  runId: string;
  events: AgentEvent[];
  outcome?: Outcome;
  /** The user's verdict on the answer, when given. */
  feedback?: AnswerFeedback;
}

/** A verdict on an answer: up verifies its question and SQL for later questions; down says why it is wrong. */
export interface AnswerFeedback {
  verdict: 'up' | 'down';
  note: string;
  /** The queries it verified or withdrew. */
  sql: string[] | null;
}

export interface Chat extends ChatSummary {
  turns: Turn[];
}

/** A passage around a search's match: before + match + after. */
export interface Snippet {
  before: string;
  match: string;
  after: string;
}

/** A conversation a search found, where the text first appears in it, and in how many messages. */
export interface ChatHit extends ChatSummary {
  in: 'title' | 'question' | 'answer';
  snippet: Snippet;
  /** Messages holding the text (0 when only the title does). */
  matches: number;
}

/** A run:events batch; the last batch of a run holds run_finished. */
export interface RunEvents {
  runId: string;
  chatId: string;
  events: AgentEvent[];
}

// ---- Report -----------------------------------------------------------------

export interface ReportChart {
  ref: string;
  /** The SVG document; empty when the chart could not be drawn. */
  svg: string;
}

/** What Loupe removed, placed or left out of a report (also listed at its end). */
export interface ReportNotice {
  kind: string;
  ref: string;
  text: string;
}

/** A written report: markdown as exported, an HTML fragment with the charts inlined. */
export interface Report {
  title: string;
  markdown: string;
  html: string;
  charts: ReportChart[];
  /** The conversation's questions it covers, numbered from 1; empty for an old one-answer report. */
  turns: number[] | null;
  notices: ReportNotice[] | null;
  /** Every question of the conversation in order: question n is questions[n-1]. */
  questions: string[] | null;
}

/** A report:delta event; reset means discard the text streamed so far. */
export interface ReportDelta {
  runId: string;
  text: string;
  reset?: boolean;
}

/**
 * How a report exports: a folder (report.md, its charts, report.html), the
 * self-contained page, printable PDF pages (charts as vectors), or an Excel
 * workbook (the text, and one sheet per table).
 */
export type ExportFormat = 'folder' | 'html' | 'pdf' | 'xlsx';

/** One stored version of a conversation's report, numbered from 1 (oldest first). */
export interface ReportVersion {
  number: number;
  title: string;
  created: string;
  /** The version it refreshed; 0 for one the model wrote. */
  of: number;
  /** What it is in a few words: "written with M", "refresh of 1: 3 numbers moved". */
  what: string;
}

/** A line of the markdown diff: " " in both versions, "-" only in A, "+" only in B. */
export interface ReportDiffLine {
  op: string;
  text: string;
}

/** Two versions of a report compared: what moved from A to B, in words, and the markdown line by line. */
export interface ReportDiff {
  a: number;
  b: number;
  summary: string;
  changes: string[];
  lines: ReportDiffLine[];
}

// ---- Settings and status ------------------------------------------------------

export interface Settings {
  provider: 'ollama' | 'openai';
  model: string;
  ollamaURL: string;
  openaiBaseURL: string;
  /** A key is stored for the OpenAI base URL's host. */
  hasAPIKey: boolean;
  /** The origin (scheme://host:port) the stored key was entered for; it is sent to no other host. */
  apiKeyFor?: string;
  maxSteps: number;
  timeoutSeconds: number;
  theme: 'system' | 'light' | 'dark';
  /**
   * The embedding model of the optional semantic boost of table search (e.g.
   * nomic-embed-text), served by the chosen provider; empty leaves it off.
   */
  embedModel?: string;
  /** Set when the key is kept in a private file because no OS keychain is available. */
  apiKeyWarning?: string;
}

/**
 * What saveSettings takes: apiKey absent keeps the stored key, "" forgets it;
 * test asks it to check the model settings first and save nothing when they do not work.
 */
export type SettingsUpdate = Settings & { apiKey?: string; test?: boolean };

// ---- MCP: Loupe as a server for other agents -----------------------------------

/** An MCP host Loupe can be added to, with the snippet that adds it. */
export interface MCPHost {
  id: 'claude' | 'vscode' | 'cursor' | (string & {});
  name: string;
  /** The host's configuration file for this user, where the snippet goes. */
  configPath: string;
  /** Where the host opens that file, in words. */
  where: string;
  /** The file names a server called "loupe". */
  configured: boolean;
  /** JSON that starts this binary as `loupe mcp`. */
  snippet: string;
}

/** One tool call an MCP client made (the call log in the config folder). */
export interface MCPCall {
  at: string;
  tool: string;
  client: string;
  status: 'ok' | 'error' | 'refused' | 'privacy' | 'canceled' | (string & {});
  ms: number;
  /** The workspace folder or connection served. */
  source?: string;
  /** The privacy level the client got. */
  level?: string;
  /** Loupe's message when the call failed. */
  error?: string;
}

/** The MCP section of Settings (MCPSetup). */
export interface MCPSetup {
  /** The installed loupe, as the snippets start it. */
  binary: string;
  /** A host lists Loupe, or a client has called it. */
  setUp: boolean;
  hosts: MCPHost[];
  /** The recent calls, newest first. */
  calls: MCPCall[];
  callLog: string;
}

// ---- Privacy and the outbox ---------------------------------------------------

/** How much of the user's data a model server is sent. */
export type PrivacyLevel = 'open' | 'masked' | 'schema';

/** The privacy level in force for the model server the settings name (GetPrivacy). */
export interface PrivacyState {
  level: PrivacyLevel;
  /** The user chose it for this server; otherwise it is the server's default. */
  chosen: boolean;
  /** What a model at this level is sent, in one line. */
  describe: string;
  /** The model server's host; local says it is on this machine. */
  host: string;
  local: boolean;
  levels: PrivacyOption[];
}

/** A privacy level and what a model at it is sent. */
export interface PrivacyOption {
  level: PrivacyLevel;
  describe: string;
}

/** One request an answer sent to its model server, its body as sent. */
export interface SentRequest {
  at: string;
  method: string;
  url: string;
  size: number;
  body: string;
  /** The body indented when it is JSON. */
  pretty: string;
  /** The body was let go to keep the conversation's record within its bound. */
  dropped?: boolean;
}

/** What one answer sent to its model server (SentOf). */
export interface AnswerSent {
  messageId: string;
  /** False for an answer from before Loupe kept a record. */
  known: boolean;
  level: PrivacyLevel | '';
  describe: string;
  server: string;
  local: boolean;
  requests: SentRequest[];
  bytes: number;
  summary: string;
}

export interface ModelInfo {
  name: string;
  tools: boolean;
  toolsKnown: boolean;
  /** A model that only makes embeddings (nomic-embed-text): it cannot answer, but serves Settings.embedModel. */
  embedding?: boolean;
  contextLength: number;
  size: number;
  recommended?: boolean;
  warning?: string;
}

/** A model:pull event. */
export interface PullProgress {
  name: string;
  status: string;
  completed: number;
  total: number;
}

export interface Check {
  ok: boolean;
  message: string;
  hint: string;
  /** What the app itself can do to fix it: "build_sandbox" (buildSandbox). */
  action?: 'build_sandbox' | (string & {});
}

export interface Status {
  model: Check;
  docker: Check;
}

/** A sandbox:build event: how far the build of the Python sandbox's image is. */
export interface SandboxProgress {
  phase: 'starting' | 'building' | 'done' | 'failed' | 'canceled' | (string & {});
  /** 0–100, an estimate. */
  percent: number;
  /** What the build does now ("Step 3/6: RUN pip install …"), or how it ended. */
  message: string;
  /** The step's latest line of output, or the megabytes moved so far. */
  detail?: string;
}

/** What buildSandbox made. */
export interface SandboxBuilt {
  image: string;
  recipe: string;
  versions: string;
  sizeBytes: number;
  elapsedMs: number;
}

/** The chart image formats saveChart takes. */
export type ChartFormat = 'png' | 'svg';

// ---- Connections ---------------------------------------------------------------

/** The database engines a connection can be to. */
export type ConnectionKind = 'postgres' | 'mysql' | 'sqlite';

/** TLS modes, in PostgreSQL's sense. */
export type TLSMode = 'disable' | 'prefer' | 'require' | 'verify-full';

/** A saved database connection; never its password. */
export interface Connection {
  name: string;
  kind: ConnectionKind | (string & {});
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  tls?: TLSMode | (string & {});
  /** The SQLite file. */
  path?: string;
  /** The connection as a URL, without the password. */
  url: string;
  hasPassword: boolean;
  /** Set when the password is kept in a private file instead of the OS keychain. */
  warning?: string;
  /** Set when the last test or use found that the role can do more than read. */
  role?: RoleWarning;
}

/**
 * A connection's role can do more than read: what (superuser, server files,
 * programs, write grants), and the SQL that makes a read-only role instead.
 * The backend decides it (remote.AuditRole); the window only shows it.
 */
export interface RoleWarning {
  role: string;
  /** One sentence for a heading. */
  message: string;
  /** Why it matters and what to do. */
  advice: string;
  risks: string[];
  sql: string;
}

/** A connection being added or edited: the fields, or a URL giving them. */
export interface ConnectionInput {
  name: string;
  /** The name of the connection being edited; absent for a new one. */
  previous?: string;
  kind?: ConnectionKind | (string & {});
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  tls?: TLSMode | (string & {});
  path?: string;
  url?: string;
  /** Absent keeps the stored password, "" forgets it. */
  password?: string;
}

/** What a successful connection test found. */
export interface ConnectionCheck {
  name: string;
  /** PostgreSQL, MySQL, MariaDB, SQLite */
  dialect: string;
  version: string;
  database: string;
  /** Tables and views. */
  tables: number;
  elapsedMs: number;
  /** Set when the role connected as can do more than read. */
  role?: RoleWarning;
}

/** A column of a connected database's table. */
export interface ConnectionColumn {
  name: string;
  type: string;
  /** The database's own comment on the column (COMMENT ON). */
  comment?: string;
  /** The user's note on the column (see setConnectionNote). */
  note?: string;
}

/** A table or view of a connected database. */
export interface ConnectionTable {
  /** How SQL on the connection names it (schema.name when there are several schemas). */
  name: string;
  schema?: string;
  kind: string;
  /** The server's estimate; -1 when it has none. */
  rows: number;
  comment?: string;
  /** The user's note on the table (see setConnectionNote). */
  note?: string;
  columns: ConnectionColumn[];
}

/** What a connected database holds. */
export interface ConnectionSchema {
  name: string;
  dialect: string;
  version: string;
  database: string;
  tables: ConnectionTable[];
}

/** An import:progress event: a query's result being copied into the workspace. */
export interface ImportProgress {
  connection: string;
  table: string;
  phase: 'connecting' | 'reading' | 'profiling' | 'done' | (string & {});
  rows: number;
  maxRows: number;
}

// ---- Errors and events ---------------------------------------------------------

/** Error codes the backend sends (the set only grows). */
export type ErrorCode =
  | 'not_found'
  | 'refused'
  | 'sql'
  | 'timeout'
  | 'file'
  | 'model_unreachable'
  | 'model'
  | 'no_model'
  | 'keychain'
  | 'db_unreachable'
  | 'db_auth'
  | 'db_unknown_database'
  | 'db_no_access'
  | 'db_tls'
  | 'db_lost'
  | 'db_no_file'
  | 'docker'
  | 'busy'
  | 'canceled'
  | 'invalid'
  | 'internal'
  | 'unreachable'
  /** A hosted model server with no privacy level chosen yet: ask the user (setPrivacy), then ask again. */
  | 'privacy'
  | (string & {});

/** An error as the backend sends it. */
export interface ApiErrorShape {
  code: ErrorCode;
  message: string;
  hint: string;
}

/** Every backend event and its payload. */
export interface EventMap {
  'load:progress': LoadProgress;
  'datasets:changed': DatasetSummary[];
  'run:events': RunEvents;
  'report:delta': ReportDelta;
  'model:pull': PullProgress;
  'status:changed': Status;
  'import:progress': ImportProgress;
  'sandbox:build': SandboxProgress;
}

export type EventName = keyof EventMap;

/**
 * A column's privacy: under the masked level its values reach a hosted model
 * only as placeholders (<email_3>). Loupe proposes columns by name and sample
 * values; the user's decision wins.
 */
export interface PrivateColumn {
  table: string;
  column: string;
  private: boolean;
  /** email, phone, card, iban, ssn, name, address, … ("private" when none fits). */
  kind?: string;
  /** Loupe proposes it (by its name or values). */
  proposed: boolean;
  /** The user confirmed or changed it. */
  decided: boolean;
}
