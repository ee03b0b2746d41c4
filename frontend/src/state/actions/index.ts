// Everything the UI does that changes shared state or calls the backend,
// by area, each action taking the store. Components get them bound to their
// app's store through useActions; the backend's events reach the on*
// handlers through ../events.ts. Nothing else in the UI changes shared
// state. (Calls that change only a dialog's own state stay in the dialog.)
import { useMemo } from 'react';
import { useStoreApi, type View } from '../store';
import { ask, cancelRun, deleteChat, dismissAskError, giveFeedback, openChat, openReport, refreshReport, renameChat, retry } from './chats';
import { editChart, resetChart } from './charts';
import { askAbout, refreshConnections, removeConnection, testSaved } from './connections';
import {
  cancelLoad,
  chooseAndOpen,
  chooseFolder,
  closePathDialog,
  dismissLoadFailure,
  loadSample,
  openFolder,
  openPaths,
  refreshDataset,
  reloadDataset,
  removeDataset,
  renameDataset,
} from './data';
import type { TextOptions } from '../../api';
import { dismissNotice, notify } from './notices';
import { buildSandbox, cancelSandboxBuild, dismissSandboxBuild, refreshSettings, refreshStatus } from './settings';
import {
  cancelConsole,
  closeConsoleTab,
  newConsoleTab,
  openConsole,
  renameConsoleTab,
  runConsole,
  selectConsoleTab,
  setConsoleText,
} from './console';
import { focusComposer, show } from './view';

export * from './charts';
export * from './chats';
export * from './connections';
export * from './console';
export * from './data';
export * from './notices';
export * from './settings';
export * from './view';

/** The actions bound to the store of the app this component is in. */
export function useActions() {
  const store = useStoreApi();
  return useMemo(
    () => ({
      store,
      notify: (kind: 'error' | 'warn' | 'info', message: string, hint?: string) => notify(store, kind, message, hint),
      dismissNotice: (id: number) => dismissNotice(store, id),
      show: (v: View) => show(store, v),
      openPaths: (paths: string[], options?: TextOptions) => openPaths(store, paths, options),
      chooseAndOpen: () => chooseAndOpen(store),
      chooseFolder: () => chooseFolder(store),
      openFolder: (choice: { asOne: boolean; name: string } | null) => openFolder(store, choice),
      cancelLoad: (key: string) => cancelLoad(store, key),
      loadSample: () => loadSample(store),
      dismissLoadFailure: (file: string) => dismissLoadFailure(store, file),
      renameDataset: (name: string, to: string) => renameDataset(store, name, to),
      refreshDataset: (name: string) => refreshDataset(store, name),
      reloadDataset: (name: string, options: TextOptions) => reloadDataset(store, name, options),
      removeDataset: (name: string) => removeDataset(store, name),
      openChat: (id: string | null) => openChat(store, id),
      renameChat: (id: string, name: string) => renameChat(store, id, name),
      deleteChat: (id: string) => deleteChat(store, id),
      ask: (q: string) => ask(store, q),
      editChart: (chatId: string, runId: string, callId: string, spec: string, title: string) => editChart(store, chatId, runId, callId, spec, title),
      resetChart: (chatId: string, runId: string, callId: string) => resetChart(store, chatId, runId, callId),
      cancelRun: (chatId: string | null) => cancelRun(store, chatId),
      retry: (chatId: string) => retry(store, chatId),
      buildSandbox: (offline?: boolean) => buildSandbox(store, offline),
      cancelSandboxBuild: () => cancelSandboxBuild(store),
      dismissSandboxBuild: () => dismissSandboxBuild(store),
      giveFeedback: (chatId: string, runId: string, verdict: 'up' | 'down', note?: string) =>
        giveFeedback(store, chatId, runId, verdict, note),
      openReport: (chatId: string, runId: string, again?: boolean, turns?: number[]) =>
        openReport(store, chatId, runId, again, turns),
      refreshReport: (chatId: string, runId: string) => refreshReport(store, chatId, runId),
      refreshStatus: () => refreshStatus(store),
      refreshSettings: () => refreshSettings(store),
      focusComposer: (draft?: string) => focusComposer(store, draft),
      openConsole: (sql?: string) => openConsole(store, sql),
      setConsoleText: (sql: string) => setConsoleText(store, sql),
      runConsole: (tab: string) => runConsole(store, tab),
      cancelConsole: (tab: string) => cancelConsole(tab),
      newConsoleTab: (sql?: string) => newConsoleTab(store, sql),
      selectConsoleTab: (tab: string) => selectConsoleTab(store, tab),
      renameConsoleTab: (tab: string, title: string) => renameConsoleTab(store, tab, title),
      closeConsoleTab: (tab: string) => closeConsoleTab(store, tab),
      closePathDialog: () => closePathDialog(store),
      dismissAskError: () => dismissAskError(store),
      refreshConnections: () => refreshConnections(store),
      askAbout: (name: string) => askAbout(store, name),
      testConnection: (name: string) => testSaved(store, name),
      removeConnection: (name: string) => removeConnection(store, name),
    }),
    [store],
  );
}
