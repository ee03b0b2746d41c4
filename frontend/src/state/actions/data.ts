// The workspace's datasets: listing, loading files (with progress), importing, renaming, removing.
import * as api from '../../api';
import type { Dataset, FolderInfo, ImportProgress, LoadProgress, LoadReport, TextOptions } from '../../api';
import { problemOf } from '../problem';
import type { Store } from '../store';
import { notify, notifyProblem } from './notices';
import { show } from './view';

export async function refreshDatasets(store: Store): Promise<void> {
  try {
    store.set({ datasets: await api.listDatasets() });
  } catch (err) {
    notifyProblem(store, err, 'Could not list the datasets');
    store.set((s) => ({ datasets: s.datasets ?? [] }));
  }
}

/**
 * openPaths loads files (text files with options, when given) and reports
 * each failure where the loads are shown. Folders among the paths wait for
 * the choice of how to open them (FolderDialog, then openFolder); the
 * files load at once.
 */
export async function openPaths(store: Store, paths: string[], options?: TextOptions): Promise<void> {
  if (paths.length === 0) return;
  let folders: FolderInfo[] = [];
  try {
    folders = await api.foldersAmong(paths);
  } catch {
    // The loads below say what is wrong with each path.
  }
  if (folders.length > 0) {
    store.set((s) => ({ folderChoices: [...s.folderChoices, ...folders.filter((f) => !s.folderChoices.some((c) => c.path === f.path))] }));
    const isFolder = new Set(folders.map((f) => f.path));
    paths = paths.filter((p) => !isFolder.has(p) && !isFolder.has(p.replace(/[/\\]+$/, '')));
    if (paths.length === 0) return;
  }
  startLoads(store, paths);
  let reports: LoadReport[] = [];
  try {
    reports = options ? await api.openFilesWith(paths, options) : await api.openFiles(paths);
  } catch (err) {
    const p = problemOf(err);
    reports = paths.map((file) => ({ file, error: p }) as LoadReport);
  }
  finishLoads(store, paths, reports);
}

/** startLoads shows each key as a load starting, which cancelLoad can stop. */
function startLoads(store: Store, keys: string[]): void {
  store.set((s) => {
    const loads = { ...s.loads };
    const cancellable = { ...s.cancellable };
    for (const k of keys) {
      loads[k] = { file: k, phase: 'starting', percent: 0, rows: 0, bytes: 0, totalBytes: 0 };
      cancellable[k] = true;
    }
    return { loads, cancellable, loadFailures: s.loadFailures.filter((f) => !keys.includes(f.file)) };
  });
}

/**
 * openFolder answers the first folder choice: it loads the folder as one
 * dataset per file, or (asOne) as one dataset called name, with its progress
 * where loads are shown; null just drops the choice.
 */
export async function openFolder(store: Store, choice: { asOne: boolean; name: string } | null): Promise<void> {
  const folder = store.get().folderChoices[0];
  if (!folder) return;
  store.set((s) => ({ folderChoices: s.folderChoices.slice(1) }));
  if (choice === null) return;
  startLoads(store, [folder.path]);
  let reports: LoadReport[] = [];
  try {
    reports = await api.openFolder(folder.path, choice.asOne, choice.name);
  } catch (err) {
    reports = [{ file: folder.path, error: problemOf(err) } as LoadReport];
  }
  finishLoads(store, [folder.path], reports);
}

/** chooseFolder opens the native folder dialog (desktop), then asks how to open the folder. */
export async function chooseFolder(store: Store): Promise<void> {
  if (!api.isDesktop()) {
    store.set({ pathDialog: true });
    return;
  }
  try {
    const dir = await api.chooseFolder();
    if (dir) await openPaths(store, [dir]);
  } catch (err) {
    notifyProblem(store, err, 'Could not open the folder dialog');
  }
}

/** cancelLoad asks the backend to stop the load shown under key. */
export async function cancelLoad(store: Store, key: string): Promise<void> {
  try {
    await api.cancelLoad(key);
  } catch (err) {
    notifyProblem(store, err, 'Could not cancel the load');
  }
}

function finishLoads(store: Store, paths: string[], reports: LoadReport[]): void {
  const failures = reports.filter((r) => r.error).map((r) => ({ file: r.file, error: problemOf(r.error) }));
  store.set((s) => {
    const loads = { ...s.loads };
    const cancellable = { ...s.cancellable };
    for (const p of paths) {
      delete loads[p];
      delete cancellable[p];
    }
    for (const r of reports) delete loads[r.file];
    return { loads, cancellable, loadFailures: [...s.loadFailures, ...failures] };
  });
  notifyLoaded(store, 'Loaded', reports.flatMap((r) => r.datasets ?? []));
  void refreshDatasets(store);
}

/**
 * notifyLoaded says what a load gave: "Loaded orders", or, when it has
 * warnings, a notice that stays with each warning on its own line.
 */
export function notifyLoaded(store: Store, verb: string, loaded: Dataset[]): void {
  if (loaded.length === 0) return;
  const names = loaded.length === 1 ? loaded[0]!.name : `${loaded.length} tables`;
  const warned = loaded.filter((d) => d.warnings.length > 0);
  if (warned.length === 0) {
    notify(store, 'info', `${verb} ${names}`);
    return;
  }
  const n = warned.reduce((k, d) => k + d.warnings.length, 0);
  const lines = warned.flatMap((d) => d.warnings.map((w) => (loaded.length > 1 ? `${d.name}: ${w}` : w)));
  notify(store, 'warn', `${verb} ${names} with ${n} ${n === 1 ? 'warning' : 'warnings'}`, lines.join('\n'));
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

/**
 * reloadDataset loads a text dataset's file again with import options,
 * with its progress where loads are shown; it rejects with the problem
 * (for the dialog that asked to show) and says what the load gave.
 */
export async function reloadDataset(store: Store, name: string, options: TextOptions): Promise<void> {
  const d = store.get().datasets?.find((x) => x.name === name);
  const key = d?.source ?? name;
  const start: LoadProgress = { file: key, table: name, phase: 'starting', percent: -1, rows: 0, bytes: 0, totalBytes: 0 };
  store.set((s) => ({ loads: { ...s.loads, [key]: start } }));
  try {
    const got = await api.reloadDataset(name, options);
    notifyLoaded(store, 'Reloaded', [got]);
    await refreshDatasets(store);
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

export function closePathDialog(store: Store): void {
  store.set({ pathDialog: false });
}
