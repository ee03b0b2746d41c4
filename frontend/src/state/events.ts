// The backend's pushed events, wired into the store once per app.
import { useEffect } from 'react';
import * as api from '../api';
import type { AgentEvent, ImportProgress, LoadProgress, SandboxProgress, Status } from '../api';
import {
  onImportProgress,
  onLoadProgress,
  onReportDelta,
  onRunEvents,
  onSandboxProgress,
  openPaths,
  refreshChats,
  refreshDatasets,
  refreshSettings,
  refreshStatus,
} from './actions';
import type { Store } from './store';

/** useBackend loads the first state and keeps it current from the backend's events. */
export function useBackend(store: Store): void {
  useEffect(() => {
    const offs = [
      api.onEvent('run:events', (b: { runId: string; chatId: string; events: AgentEvent[] }) => onRunEvents(store, b)),
      api.onEvent('load:progress', (p: LoadProgress) => onLoadProgress(store, p)),
      api.onEvent('import:progress', (p: ImportProgress) => onImportProgress(store, p)),
      api.onEvent('datasets:changed', () => void refreshDatasets(store)),
      api.onEvent('status:changed', (s: Status) => store.set({ status: s })),
      api.onEvent('report:delta', (d: { runId: string; text: string; reset?: boolean }) => onReportDelta(store, d)),
      api.onFileDrop((paths: string[]) => void openPaths(store, paths)),
      api.onEvent('sandbox:build', (p: SandboxProgress) => onSandboxProgress(store, p)),
    ];
    void refreshDatasets(store);
    void refreshChats(store);
    void refreshStatus(store);
    void refreshSettings(store);
    return () => {
      for (const off of offs) off();
    };
  }, [store]);
}
