// A small external store: the app's shared state in one object, read by
// components through selectors (useStore) and changed only by the actions in
// ./actions.ts. One store per mounted app, so tests start from a clean one.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type {
  AnswerFeedback,
  AgentEvent,
  ChatSummary,
  Connection,
  DatasetSummary,
  FolderInfo,
  LoadProgress,
  QueryResult,
  Report,
  SandboxBuilt,
  SandboxProgress,
  Settings,
  Status,
} from '../api';
import type { Problem } from './problem';

/** What the main area shows. */
export type View =
  | { kind: 'chat' }
  | { kind: 'console'; nonce: number }
  | { kind: 'report'; chatId: string; runId: string }
  | { kind: 'settings' }
  | { kind: 'dataset'; name: string; mode: 'preview' | 'profile' };

/** One question and the run answering it. */
export interface TurnRef {
  question: string;
  runId: string;
  /** The user's verdict on the answer, when given. */
  feedback?: AnswerFeedback;
}

/** A report being written or written. */
export interface ReportState {
  text: string;
  writing: boolean;
  report?: Report;
  error?: Problem;
}

/** The build of the Python sandbox's image started from the app. */
export interface SandboxBuildState {
  running: boolean;
  progress: SandboxProgress;
  error?: Problem;
  built?: SandboxBuilt;
}

/** A message for the user that is not tied to one place on screen. */
export interface Notice {
  id: number;
  /** warn: something the user should know (a load's warnings); stays until dismissed, like errors. */
  kind: 'error' | 'warn' | 'info';
  message: string;
  hint?: string;
}

/** A file that failed to load, shown where the loads are shown. */
export interface LoadFailure {
  file: string;
  error: Problem;
}

/** One tab of the SQL console: its text and its last run. */
export interface ConsoleTab {
  id: string;
  title: string;
  text: string;
  /** Bumped when the text is replaced from elsewhere (Open in console, the history). */
  nonce: number;
  /** The last result; it stays (dimmed) while the next query runs. */
  result: QueryResult | null;
  error: Problem | null;
  running: boolean;
  /** When the running query started (ms since the epoch). */
  startedAt: number;
  /** How long the last query ran before it was stopped; null when it was not. */
  stoppedAfterMs: number | null;
  /** The SQL of the last run, which an error's position refers to. */
  ran: string;
}

/** A tab with nothing in it, called "Query n". */
export function blankTab(n: number, id = `tab-${n}`): ConsoleTab {
  return { id, title: `Query ${n}`, text: '', nonce: 0, result: null, error: null, running: false, startedAt: 0, stoppedAfterMs: null, ran: '' };
}

export interface AppState {
  view: View;
  /** The conversation the chat view shows; null for a new one not yet created. */
  chatId: string | null;
  /** The datasets' summaries; useDataset gets one whole. */
  datasets: DatasetSummary[] | null;
  chats: ChatSummary[];
  turns: Record<string, TurnRef[]>;
  events: Record<string, AgentEvent[]>;
  /** The run in progress per chat. */
  running: Record<string, string>;
  /** Errors of asks that never started a run, per chat ("" for a new chat). */
  askErrors: Record<string, Problem>;
  loads: Record<string, LoadProgress>;
  loadFailures: LoadFailure[];
  /** Paths asked for through the path dialog (web mode has no native one). */
  pathDialog: boolean;
  /** Folders opened and waiting for the choice of how (one dataset per file, or one); the first is asked. */
  folderChoices: FolderInfo[];
  /** Keys of loads (files or folders being opened) that CancelLoad can stop. */
  cancellable: Record<string, true>;
  status: Status | null;
  settings: Settings | null;
  reports: Record<string, ReportState>;
  notices: Notice[];
  /** Bumped to ask the question box to take focus. */
  focusComposer: number;
  /** The SQL console's tabs, each with its text, result and error; kept while other views show. */
  consoleTabs: ConsoleTab[];
  /** The id of the tab the console shows. */
  consoleTab: string;
  /** Bumped after every console query, so that the history shows it. */
  consoleRuns: number;
  /** Text put into the question box from elsewhere (example questions). */
  draft: { text: string; nonce: number } | null;
  /** The saved database connections; null until listed. */
  connections: Connection[] | null;
  /** The sandbox image build, while it runs and after it ended; null before any. */
  sandboxBuild: SandboxBuildState | null;
}

export function initialState(): AppState {
  return {
    view: { kind: 'chat' },
    chatId: null,
    datasets: null,
    chats: [],
    turns: {},
    events: {},
    running: {},
    askErrors: {},
    loads: {},
    loadFailures: [],
    pathDialog: false,
    folderChoices: [],
    cancellable: {},
    status: null,
    settings: null,
    reports: {},
    notices: [],
    focusComposer: 0,
    connections: null,
    draft: null,
    consoleTabs: [blankTab(1)],
    consoleTab: 'tab-1',
    consoleRuns: 0,
    sandboxBuild: null,
  };
}

export interface Store {
  get(): AppState;
  set(change: Partial<AppState> | ((s: AppState) => Partial<AppState>)): void;
  subscribe(listener: () => void): () => void;
}

export function createStore(init: AppState = initialState()): Store {
  let state = init;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(change) {
      const patch = typeof change === 'function' ? change(state) : change;
      state = { ...state, ...patch };
      for (const l of listeners) l();
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

export const StoreContext = createContext<Store | null>(null);

/** The store of the app this component is mounted in. */
export function useStoreApi(): Store {
  const s = useContext(StoreContext);
  if (s === null) throw new Error('useStoreApi outside <StoreContext.Provider>');
  return s;
}

/** The part of the state sel picks; re-renders when it changes (by identity). */
export function useStore<T>(sel: (s: AppState) => T): T {
  const store = useStoreApi();
  return useSyncExternalStore(store.subscribe, () => sel(store.get()));
}
