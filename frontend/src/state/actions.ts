// Everything the UI does that changes shared state or calls the backend.
// Each action takes the store; components get them bound through useActions.
import { useMemo } from 'react';
import * as api from '../api';
import type { AgentEvent, ImportProgress, LoadProgress, LoadReport, SandboxProgress } from '../api';
import { problemOf, type Problem } from './problem';
import { useStoreApi, type Store, type View } from './store';

let noticeSeq = 0;

/** notify shows a message in the corner; errors stay until dismissed. */
export function notify(store: Store, kind: 'error' | 'info', message: string, hint = ''): void {
  const id = ++noticeSeq;
  store.set((s) => ({ notices: [...s.notices, { id, kind, message, hint }] }));
  if (kind === 'info') {
    setTimeout(() => dismissNotice(store, id), 4000);
  }
}

export function dismissNotice(store: Store, id: number): void {
  store.set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}

function notifyProblem(store: Store, err: unknown, prefix?: string): Problem {
  const p = problemOf(err);
  notify(store, 'error', prefix ? `${prefix}: ${p.message}` : p.message, p.hint);
  return p;
}

export function show(store: Store, view: View): void {
  store.set({ view });
}

// ---- data

export async function refreshDatasets(store: Store): Promise<void> {
  try {
    store.set({ datasets: await api.listDatasets() });
  } catch (err) {
    notifyProblem(store, err, 'Could not list the datasets');
    store.set((s) => ({ datasets: s.datasets ?? [] }));
  }
}

/** openPaths loads files and reports each failure where the loads are shown. */
export async function openPaths(store: Store, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  store.set((s) => {
    const loads = { ...s.loads };
    for (const p of paths) loads[p] = { file: p, phase: 'starting', percent: 0, rows: 0, bytes: 0, totalBytes: 0 };
    return { loads, loadFailures: s.loadFailures.filter((f) => !paths.includes(f.file)) };
  });
  let reports: LoadReport[] = [];
  try {
    reports = await api.openFiles(paths);
  } catch (err) {
    const p = problemOf(err);
    reports = paths.map((file) => ({ file, error: p }) as LoadReport);
  }
  finishLoads(store, paths, reports);
}

function finishLoads(store: Store, paths: string[], reports: LoadReport[]): void {
  const failures = reports.filter((r) => r.error).map((r) => ({ file: r.file, error: problemOf(r.error) }));
  store.set((s) => {
    const loads = { ...s.loads };
    for (const p of paths) delete loads[p];
    for (const r of reports) delete loads[r.file];
    return { loads, loadFailures: [...s.loadFailures, ...failures] };
  });
  const loaded = reports.flatMap((r) => r.datasets ?? []);
  if (loaded.length > 0) {
    const names = loaded.map((d) => d.name);
    notify(store, 'info', `Loaded ${names.length === 1 ? names[0] : `${names.length} tables`}`);
  }
  void refreshDatasets(store);
}

/** chooseAndOpen opens the native dialog, or the path dialog where there is none. */
export async function chooseAndOpen(store: Store): Promise<void> {
  if (!api.isDesktop()) {
    store.set({ pathDialog: true });
    return;
  }
  try {
    const paths = await api.chooseFiles();
    await openPaths(store, paths);
  } catch (err) {
    notifyProblem(store, err, 'Could not open the file dialog');
  }
}

export async function loadSample(store: Store): Promise<void> {
  const key = 'Sample data';
  store.set((s) => ({
    loads: { ...s.loads, [key]: { file: key, phase: 'starting', percent: 0, rows: 0, bytes: 0, totalBytes: 0 } },
  }));
  let reports: LoadReport[] = [];
  try {
    reports = await api.sampleDataset();
  } catch (err) {
    reports = [{ file: key, error: problemOf(err) } as LoadReport];
  }
  finishLoads(store, [key], reports);
}

export function onLoadProgress(store: Store, p: LoadProgress): void {
  store.set((s) => ({ loads: { ...s.loads, [p.file]: p } }));
}

export function dismissLoadFailure(store: Store, file: string): void {
  store.set((s) => ({ loadFailures: s.loadFailures.filter((f) => f.file !== file) }));
}

export async function renameDataset(store: Store, name: string, newName: string): Promise<boolean> {
  try {
    await api.renameDataset(name, newName);
    const v = store.get().view;
    if (v.kind === 'dataset' && v.name === name) show(store, { ...v, name: newName });
    await refreshDatasets(store);
    return true;
  } catch (err) {
    notifyProblem(store, err, `Could not rename ${name}`);
    return false;
  }
}

/**
 * refreshDataset reloads a dataset from its file, or re-runs its import, with
 * its progress where loads are shown (the file's load:progress events, or the
 * import's import:progress ones) until it ends.
 */
export async function refreshDataset(store: Store, name: string): Promise<void> {
  const d = store.get().datasets?.find((x) => x.name === name);
  const key = d && !d.source.startsWith('connection ') ? d.source : importKey(name);
  const start: LoadProgress = { file: d?.source ?? name, table: name, phase: 'starting', percent: -1, rows: 0, bytes: 0, totalBytes: 0 };
  store.set((s) => ({ loads: { ...s.loads, [key]: start } }));
  try {
    await api.refreshDataset(name);
    notify(store, 'info', `Reloaded ${name} from its source`);
    await refreshDatasets(store);
  } catch (err) {
    notifyProblem(store, err, `Could not reload ${name}`);
  } finally {
    store.set((s) => {
      const loads = { ...s.loads };
      delete loads[key];
      return { loads };
    });
  }
}

/** importKey is where a refreshing import's progress is kept in loads. */
function importKey(table: string): string {
  return `import:${table}`;
}

/**
 * onImportProgress shows an import:progress event where loads are shown when
 * the import is a refresh started there (refreshDataset); the import dialog
 * shows its own imports.
 */
export function onImportProgress(store: Store, p: ImportProgress): void {
  const key = importKey(p.table);
  store.set((s) => {
    const cur = s.loads[key];
    if (!cur) return {};
    return { loads: { ...s.loads, [key]: { ...cur, phase: p.phase, rows: p.rows, percent: -1 } } };
  });
}

export async function removeDataset(store: Store, name: string): Promise<void> {
  try {
    await api.removeDataset(name);
    const v = store.get().view;
    if (v.kind === 'dataset' && v.name === name) show(store, { kind: 'chat' });
    await refreshDatasets(store);
  } catch (err) {
    notifyProblem(store, err, `Could not remove ${name}`);
  }
}

// ---- chats

export async function refreshChats(store: Store): Promise<void> {
  try {
    store.set({ chats: await api.listChats() });
  } catch (err) {
    notifyProblem(store, err, 'Could not list the conversations');
  }
}

/** openChat shows a conversation, fetching its turns unless they are here. */
export async function openChat(store: Store, id: string | null): Promise<void> {
  store.set((s) => ({ chatId: id, view: { kind: 'chat' }, focusComposer: s.focusComposer + 1 }));
  if (id === null || store.get().turns[id] !== undefined) return;
  try {
    const chat = await api.getChat(id);
    store.set((s) => {
      const events = { ...s.events };
      for (const t of chat.turns) {
        // Live events that arrived first are newer than the stored ones.
        if (events[t.runId] === undefined || events[t.runId]!.length < t.events.length) events[t.runId] = t.events;
      }
      return { turns: { ...s.turns, [id]: chat.turns.map((t) => ({ question: t.question, runId: t.runId })) }, events };
    });
  } catch (err) {
    notifyProblem(store, err, 'Could not open the conversation');
  }
}

export async function renameChat(store: Store, id: string, name: string): Promise<void> {
  try {
    await api.renameChat(id, name);
    await refreshChats(store);
  } catch (err) {
    notifyProblem(store, err, 'Could not rename the conversation');
  }
}

export async function deleteChat(store: Store, id: string): Promise<void> {
  try {
    await api.deleteChat(id);
    const running = store.get().running[id];
    store.set((s) => {
      const turns = { ...s.turns };
      delete turns[id];
      const r = { ...s.running };
      delete r[id];
      return { turns, running: r, chatId: s.chatId === id ? null : s.chatId };
    });
    if (running) void api.cancel(running).catch(() => undefined);
    await refreshChats(store);
  } catch (err) {
    notifyProblem(store, err, 'Could not delete the conversation');
  }
}

/**
 * ask sends a question in the current conversation, creating the
 * conversation first when there is none. Errors that stop the run from
 * starting are kept per chat and shown under the question box.
 */
export async function ask(store: Store, question: string): Promise<boolean> {
  const q = question.trim();
  if (q === '') return false;
  let chatId = store.get().chatId;
  const errKey = chatId ?? '';
  store.set((s) => {
    const e = { ...s.askErrors };
    delete e[errKey];
    return { askErrors: e, view: { kind: 'chat' } };
  });
  try {
    const first = chatId === null || (store.get().turns[chatId]?.length ?? 0) === 0;
    if (chatId === null) {
      const chat = await api.newChat();
      chatId = chat.id;
      store.set((s) => ({ chatId: chat.id, turns: { ...s.turns, [chat.id]: [] }, chats: [chat, ...s.chats] }));
    }
    const id = chatId;
    const { runId } = await api.ask(id, q);
    store.set((s) => ({
      turns: { ...s.turns, [id]: [...(s.turns[id] ?? []), { question: q, runId }] },
      running: finished(s.events[runId]) ? s.running : { ...s.running, [id]: runId },
      events: s.events[runId] ? s.events : { ...s.events, [runId]: [] },
    }));
    // The backend names a conversation from its first question.
    if (first) await refreshChats(store);
    return true;
  } catch (err) {
    const p = problemOf(err);
    store.set((s) => ({ askErrors: { ...s.askErrors, [chatId ?? '']: p } }));
    return false;
  }
}

function finished(events: AgentEvent[] | undefined): boolean {
  return events?.some((e) => e.type === 'run_finished') ?? false;
}

/** onRunEvents appends a batch of a run's events. */
export function onRunEvents(store: Store, batch: { runId: string; chatId: string; events: AgentEvent[] }): void {
  const done = batch.events.some((e) => e.type === 'run_finished');
  store.set((s) => {
    const patch: Partial<typeof s> = {
      events: { ...s.events, [batch.runId]: [...(s.events[batch.runId] ?? []), ...batch.events] },
    };
    if (done && s.running[batch.chatId] === batch.runId) {
      const r = { ...s.running };
      delete r[batch.chatId];
      patch.running = r;
    } else if (!done && s.turns[batch.chatId]?.some((t) => t.runId === batch.runId) && !s.running[batch.chatId]) {
      patch.running = { ...s.running, [batch.chatId]: batch.runId };
    }
    return patch;
  });
  if (done) void refreshChats(store);
}

/**
 * retry answers again the chat's last question (its answer was stopped, cut
 * off by a crash, or failed); the new run is the chat's newest turn. Errors
 * are shown under the question box, as ask's are.
 */
export async function retry(store: Store, chatId: string): Promise<boolean> {
  store.set((s) => {
    const e = { ...s.askErrors };
    delete e[chatId];
    return { askErrors: e };
  });
  try {
    const { runId } = await api.retry(chatId);
    store.set((s) => {
      const turns = s.turns[chatId] ?? [];
      const question = turns[turns.length - 1]?.question ?? '';
      return {
        turns: { ...s.turns, [chatId]: [...turns, { question, runId }] },
        running: finished(s.events[runId]) ? s.running : { ...s.running, [chatId]: runId },
        events: s.events[runId] ? s.events : { ...s.events, [runId]: [] },
      };
    });
    return true;
  } catch (err) {
    const p = problemOf(err);
    store.set((s) => ({ askErrors: { ...s.askErrors, [chatId]: p } }));
    return false;
  }
}

export async function cancelRun(store: Store, chatId: string | null): Promise<void> {
  if (chatId === null) return;
  const runId = store.get().running[chatId];
  if (!runId) return;
  try {
    await api.cancel(runId);
  } catch (err) {
    notifyProblem(store, err, 'Could not stop the run');
  }
}

// ---- reports

/**
 * openReport shows the report view with the run's report: the one kept in
 * the conversation store when there is one (written in an earlier
 * session, too), else a new one written now; again writes a new one.
 */
export async function openReport(store: Store, chatId: string, runId: string, again = false): Promise<void> {
  show(store, { kind: 'report', chatId, runId });
  const cur = store.get().reports[runId];
  if (cur && (cur.writing || (cur.report && !again))) return;
  store.set((s) => ({ reports: { ...s.reports, [runId]: { text: '', writing: true } } }));
  try {
    const kept = again ? null : await api.getReport(chatId, runId);
    const report = kept ?? (await api.writeReport(chatId, runId));
    store.set((s) => ({ reports: { ...s.reports, [runId]: { text: report.markdown, writing: false, report } } }));
  } catch (err) {
    const error = problemOf(err);
    store.set((s) => ({
      reports: { ...s.reports, [runId]: { text: s.reports[runId]?.text ?? '', writing: false, error } },
    }));
  }
}

export function onReportDelta(store: Store, d: { runId: string; text: string; reset?: boolean }): void {
  store.set((s) => {
    const cur = s.reports[d.runId] ?? { text: '', writing: true };
    const text = d.reset ? d.text : cur.text + d.text;
    return { reports: { ...s.reports, [d.runId]: { ...cur, text } } };
  });
}

// ---- settings and status

export async function refreshStatus(store: Store): Promise<void> {
  try {
    store.set({ status: await api.status() });
  } catch (err) {
    notifyProblem(store, err, 'Could not check the model and Docker');
  }
}

export async function refreshSettings(store: Store): Promise<void> {
  try {
    store.set({ settings: await api.getSettings() });
  } catch (err) {
    notifyProblem(store, err, 'Could not read the settings');
  }
}

/**
 * buildSandbox builds the Python sandbox's image; its progress arrives as
 * sandbox:build events (onSandboxProgress). When it ends the status is
 * checked again.
 */
export async function buildSandbox(store: Store, offline = false): Promise<void> {
  if (store.get().sandboxBuild?.running) return;
  store.set({ sandboxBuild: { running: true, progress: { phase: 'starting', percent: 0, message: 'Starting the build…' } } });
  try {
    const built = await api.buildSandbox(offline);
    store.set((s) => ({
      sandboxBuild: { running: false, built, progress: { ...(s.sandboxBuild?.progress ?? { message: '' }), phase: 'done', percent: 100 } },
    }));
    notify(store, 'info', `Built the Python sandbox (${built.image})`);
  } catch (err) {
    const error = problemOf(err);
    store.set((s) => ({
      sandboxBuild: {
        running: false,
        progress: { ...(s.sandboxBuild?.progress ?? { percent: 0, message: '' }), phase: error.code === 'canceled' ? 'canceled' : 'failed' },
        ...(error.code === 'canceled' ? {} : { error }),
      },
    }));
  }
  void refreshStatus(store);
}

export async function cancelSandboxBuild(store: Store): Promise<void> {
  try {
    await api.cancelSandboxBuild();
  } catch (err) {
    notifyProblem(store, err, 'Could not stop the build');
  }
}

/** onSandboxProgress shows a sandbox:build event (also of a build another window started). */
export function onSandboxProgress(store: Store, p: SandboxProgress): void {
  store.set((s) => {
    const cur = s.sandboxBuild;
    const ended = p.phase === 'done' || p.phase === 'failed' || p.phase === 'canceled';
    if (cur && !cur.running && ended) return {}; // its call's answer says more
    return { sandboxBuild: { ...(cur ?? {}), running: !ended, progress: p } };
  });
}

export function dismissSandboxBuild(store: Store): void {
  if (store.get().sandboxBuild?.running) return;
  store.set({ sandboxBuild: null });
}

export function focusComposer(store: Store, draft?: string): void {
  store.set((s) => ({
    view: { kind: 'chat' },
    focusComposer: s.focusComposer + 1,
    draft: draft === undefined ? s.draft : { text: draft, nonce: (s.draft?.nonce ?? 0) + 1 },
  }));
}

export function openConsole(store: Store, sql?: string): void {
  const v = store.get().view;
  const nonce = (v.kind === 'console' ? v.nonce : 0) + 1;
  if (sql !== undefined) store.set({ consoleText: sql });
  show(store, sql === undefined ? { kind: 'console', nonce } : { kind: 'console', sql, nonce });
}

/** The actions bound to the store of the app this component is in. */
export function useActions() {
  const store = useStoreApi();
  return useMemo(
    () => ({
      store,
      notify: (kind: 'error' | 'info', message: string, hint?: string) => notify(store, kind, message, hint),
      dismissNotice: (id: number) => dismissNotice(store, id),
      show: (v: View) => show(store, v),
      openPaths: (paths: string[]) => openPaths(store, paths),
      chooseAndOpen: () => chooseAndOpen(store),
      loadSample: () => loadSample(store),
      dismissLoadFailure: (file: string) => dismissLoadFailure(store, file),
      renameDataset: (name: string, to: string) => renameDataset(store, name, to),
      refreshDataset: (name: string) => refreshDataset(store, name),
      removeDataset: (name: string) => removeDataset(store, name),
      openChat: (id: string | null) => openChat(store, id),
      renameChat: (id: string, name: string) => renameChat(store, id, name),
      deleteChat: (id: string) => deleteChat(store, id),
      ask: (q: string) => ask(store, q),
      cancelRun: (chatId: string | null) => cancelRun(store, chatId),
      retry: (chatId: string) => retry(store, chatId),
      buildSandbox: (offline?: boolean) => buildSandbox(store, offline),
      cancelSandboxBuild: () => cancelSandboxBuild(store),
      dismissSandboxBuild: () => dismissSandboxBuild(store),
      openReport: (chatId: string, runId: string, again?: boolean) => openReport(store, chatId, runId, again),
      refreshStatus: () => refreshStatus(store),
      refreshSettings: () => refreshSettings(store),
      focusComposer: (draft?: string) => focusComposer(store, draft),
      openConsole: (sql?: string) => openConsole(store, sql),
    }),
    [store],
  );
}
