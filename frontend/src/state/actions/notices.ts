// The notices in the corner: what an action says to the user.
import { problemOf, type Problem } from '../problem';
import type { Store } from '../store';

let noticeSeq = 0;

/** notify shows a message in the corner; errors stay until dismissed. */
export function notify(store: Store, kind: 'error' | 'warn' | 'info', message: string, hint = ''): void {
  const id = ++noticeSeq;
  store.set((s) => ({ notices: [...s.notices, { id, kind, message, hint }] }));
  if (kind === 'info') {
    setTimeout(() => dismissNotice(store, id), 4000);
  }
  // Warnings stay long enough to be read; the place they belong to
  // (a dataset's header) keeps them after.
  if (kind === 'warn') {
    setTimeout(() => dismissNotice(store, id), 15000);
  }
}

export function dismissNotice(store: Store, id: number): void {
  store.set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}

export function notifyProblem(store: Store, err: unknown, prefix?: string): Problem {
  const p = problemOf(err);
  notify(store, 'error', prefix ? `${prefix}: ${p.message}` : p.message, p.hint);
  return p;
}
