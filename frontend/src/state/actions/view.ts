// Which view is shown, and moving the user's attention to the composer or the console.
import * as api from '../../api';
import { problemOf } from '../problem';
import type { Store, View } from '../store';

export function show(store: Store, view: View): void {
  store.set({ view });
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

export function setConsoleText(store: Store, sql: string): void {
  store.set({ consoleText: sql });
}

/**
 * runConsole runs the console's SQL and keeps its result or its error. A
 * query stopped (cancelConsole) keeps the result before it and says
 * "canceled".
 */
export async function runConsole(store: Store, sql: string): Promise<'done' | 'failed' | 'canceled'> {
  try {
    const r = await api.runSQL(sql);
    store.set({ consoleResult: r, consoleError: null });
    return 'done';
  } catch (err) {
    const p = problemOf(err);
    if (p.code === 'canceled') {
      store.set({ consoleError: null });
      return 'canceled';
    }
    store.set({ consoleError: p, consoleResult: null });
    return 'failed';
  }
}

/** cancelConsole stops the console's running query. */
export async function cancelConsole(): Promise<void> {
  await api.cancelSQL();
}
