// The SQL console's tabs: opening SQL in a tab, editing, running and
// stopping each tab's query (tabs run side by side in the backend), and
// keeping the tabs' text and names in localStorage across restarts.
import * as api from '../../api';
import { problemOf } from '../problem';
import { blankTab, type AppState, type ConsoleTab, type Store } from '../store';
import { show } from './view';

/** The active tab. */
export function activeTab(s: AppState): ConsoleTab {
  return s.consoleTabs.find((t) => t.id === s.consoleTab) ?? s.consoleTabs[0]!;
}

function patchTab(store: Store, id: string, patch: Partial<ConsoleTab> | ((t: ConsoleTab) => Partial<ConsoleTab>)): void {
  store.set((s) => ({
    consoleTabs: s.consoleTabs.map((t) => (t.id === id ? { ...t, ...(typeof patch === 'function' ? patch(t) : patch) } : t)),
  }));
  saveTabs(store);
}

/** A tab that holds nothing yet: opening SQL fills it rather than adding one. */
export function isBlank(t: ConsoleTab): boolean {
  return t.text.trim() === '' && t.result === null && t.error === null && !t.running;
}

/** The number the next "Query n" tab takes. */
function nextNumber(tabs: readonly ConsoleTab[]): number {
  let n = 0;
  for (const t of tabs) {
    const m = /^Query (\d+)$/.exec(t.title);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return Math.max(n, tabs.length) + 1;
}

function newId(): string {
  return `tab-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * openConsole shows the console. With sql, the SQL opens in a tab of its
 * own — the active tab when it is blank, else a new one — so what the
 * other tabs hold is never replaced.
 */
export function openConsole(store: Store, sql?: string): void {
  if (sql !== undefined) {
    const s = store.get();
    const cur = activeTab(s);
    if (isBlank(cur)) patchTab(store, cur.id, (t) => ({ text: sql, nonce: t.nonce + 1 }));
    else newConsoleTab(store, sql);
  }
  const v = store.get().view;
  show(store, { kind: 'console', nonce: (v.kind === 'console' ? v.nonce : 0) + 1 });
}

/** newConsoleTab adds a tab holding sql after the others and shows it. */
export function newConsoleTab(store: Store, sql = ''): string {
  const id = newId();
  store.set((s) => {
    const t = { ...blankTab(nextNumber(s.consoleTabs), id), text: sql, nonce: 1 };
    return { consoleTabs: [...s.consoleTabs, t], consoleTab: id };
  });
  saveTabs(store);
  return id;
}

export function selectConsoleTab(store: Store, id: string): void {
  if (store.get().consoleTabs.some((t) => t.id === id)) {
    store.set({ consoleTab: id });
    saveTabs(store);
  }
}

export function renameConsoleTab(store: Store, id: string, title: string): void {
  const t = title.trim();
  if (t !== '') patchTab(store, id, { title: t });
}

/**
 * closeConsoleTab closes a tab, stopping its query if one runs. The tab
 * beside it is shown; closing the last leaves a blank one.
 */
export function closeConsoleTab(store: Store, id: string): void {
  const s = store.get();
  const i = s.consoleTabs.findIndex((t) => t.id === id);
  if (i < 0) return;
  if (s.consoleTabs[i]!.running) void api.cancelConsoleSQL(id).catch(() => undefined);
  let tabs = s.consoleTabs.filter((t) => t.id !== id);
  if (tabs.length === 0) tabs = [blankTab(1, newId())];
  const active = s.consoleTab === id ? tabs[Math.min(i, tabs.length - 1)]!.id : s.consoleTab;
  store.set({ consoleTabs: tabs, consoleTab: active });
  saveTabs(store);
}

/** setConsoleText is the active tab's text as typed. */
export function setConsoleText(store: Store, sql: string): void {
  patchTab(store, store.get().consoleTab, { text: sql });
}

/**
 * runConsole runs the tab's SQL and keeps its result or its error in it.
 * A query stopped (cancelConsole) keeps the result before it and says
 * "canceled". The result lands in the tab that ran it, whichever is shown
 * by then; a tab closed meanwhile gets nothing.
 */
export async function runConsole(store: Store, id: string): Promise<'done' | 'failed' | 'canceled' | 'busy'> {
  const tab = store.get().consoleTabs.find((t) => t.id === id);
  const sql = tab?.text.trim() ?? '';
  if (!tab || sql === '' || tab.running) return 'busy';
  const startedAt = Date.now();
  patchTab(store, id, { running: true, startedAt, stoppedAfterMs: null, ran: sql });
  let how: 'done' | 'failed' | 'canceled';
  try {
    const r = await api.runConsoleSQL(id, sql);
    patchTab(store, id, { result: r, error: null, running: false });
    how = 'done';
  } catch (err) {
    const p = problemOf(err);
    if (p.code === 'canceled') {
      patchTab(store, id, { error: null, running: false, stoppedAfterMs: Date.now() - startedAt });
      how = 'canceled';
    } else {
      patchTab(store, id, { error: p, result: null, running: false });
      how = 'failed';
    }
  }
  store.set((s) => ({ consoleRuns: s.consoleRuns + 1 }));
  return how;
}

/** cancelConsole stops the tab's running query. */
export async function cancelConsole(id: string): Promise<void> {
  await api.cancelConsoleSQL(id);
}

// ---- Kept across restarts -------------------------------------------------------

/** Where the tabs are kept: the browser's storage of this origin (one per `loupe serve`, one for the window). */
export const TABS_KEY = 'loupe.console.tabs.v1';

interface SavedTabs {
  active: string;
  tabs: { id: string; title: string; text: string }[];
}

/** The stores with a save pending. */
const saving = new WeakSet<Store>();

/** saveTabs keeps the tabs' names and text (not their results, which live in the backend's memory), soon. */
function saveTabs(store: Store): void {
  if (saving.has(store)) return;
  saving.add(store);
  setTimeout(() => {
    saving.delete(store);
    const s = store.get();
    const saved: SavedTabs = { active: s.consoleTab, tabs: s.consoleTabs.map(({ id, title, text }) => ({ id, title, text })) };
    try {
      localStorage.setItem(TABS_KEY, JSON.stringify(saved));
    } catch {
      // Storage full or off: the tabs live as long as the page.
    }
  }, 250);
}

/** savedTabs is the state with the tabs kept by saveTabs, when there are any. */
export function withSavedTabs(s: AppState): AppState {
  try {
    const raw = localStorage.getItem(TABS_KEY);
    if (!raw) return s;
    const saved = JSON.parse(raw) as SavedTabs;
    const tabs = (saved.tabs ?? [])
      .filter((t) => typeof t.id === 'string' && typeof t.text === 'string')
      .map((t, i) => ({ ...blankTab(i + 1, t.id), title: typeof t.title === 'string' && t.title ? t.title : `Query ${i + 1}`, text: t.text }));
    if (tabs.length === 0) return s;
    const active = tabs.some((t) => t.id === saved.active) ? saved.active : tabs[0]!.id;
    return { ...s, consoleTabs: tabs, consoleTab: active };
  } catch {
    return s;
  }
}
