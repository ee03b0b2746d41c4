// The one place the UI subscribes to the backend's pushed events (and to
// files dropped on the window). useBackend wires the app-wide ones into the
// store through the actions' on* handlers, once per app; a component that
// needs an event for its own state (a dialog's progress) subscribes through
// useBackendEvent. Nothing else calls api.onEvent (events.test.ts checks).
import { useEffect, useRef } from 'react';
import * as api from '../api';
import type { EventMap, EventName } from '../api';
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
      api.onEvent('run:events', (b) => onRunEvents(store, b)),
      api.onEvent('load:progress', (p) => onLoadProgress(store, p)),
      api.onEvent('import:progress', (p) => onImportProgress(store, p)),
      api.onEvent('datasets:changed', () => void refreshDatasets(store)),
      api.onEvent('status:changed', (s) => store.set({ status: s })),
      api.onEvent('report:delta', (d) => onReportDelta(store, d)),
      api.onFileDrop((paths: string[]) => void openPaths(store, paths)),
      api.onEvent('sandbox:build', (p) => onSandboxProgress(store, p)),
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

/**
 * useBackendEvent calls handler with each of the backend's name events while
 * the component is mounted; the handler of the latest render is the one
 * called, so it may read the component's current props and state.
 */
export function useBackendEvent<K extends EventName>(name: K, handler: (payload: EventMap[K]) => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => api.onEvent(name, (p: EventMap[K]) => latest.current(p)), [name]);
}
