// What the connection screens do to shared state: list the saved
// connections and open a conversation bound to one. (Calls that change
// only a dialog's own state stay in the dialog.)
import * as api from '../../api';
import type { ConnectionCheck } from '../../api';
import { problemOf } from '../problem';
import type { Store } from '../store';
import { notify } from './notices';

export async function refreshConnections(store: Store): Promise<void> {
  try {
    store.set({ connections: await api.listConnections() });
  } catch (err) {
    const p = problemOf(err);
    notify(store, 'error', `Could not list the connections: ${p.message}`, p.hint);
    store.set((s) => ({ connections: s.connections ?? [] }));
  }
}

/** askAbout starts a conversation about a connection and shows it, ready for a question. */
export async function askAbout(store: Store, name: string): Promise<void> {
  try {
    const chat = await api.newConnectionChat(name);
    store.set((s) => ({
      chats: [chat, ...s.chats.filter((c) => c.id !== chat.id)],
      chatId: chat.id,
      turns: { ...s.turns, [chat.id]: [] },
      view: { kind: 'chat' },
      focusComposer: s.focusComposer + 1,
    }));
  } catch (err) {
    const p = problemOf(err);
    notify(store, 'error', `Could not start a conversation about ${name}: ${p.message}`, p.hint);
  }
}

/** checkWords says what a successful test found, in one line. */
export function checkWords(c: ConnectionCheck): string {
  const version = c.version ? ` ${c.version.split(/\s/)[0]}` : '';
  const tables = `${c.tables.toLocaleString('en-US')} ${c.tables === 1 ? 'table or view' : 'tables and views'}`;
  return `Connected to ${c.dialect}${version}: ${tables}, ${Math.max(1, Math.round(c.elapsedMs))} ms`;
}

/** testSaved tests a saved connection and says how it went in the corner. */
export async function testSaved(store: Store, name: string): Promise<void> {
  try {
    const check = await api.testConnection(name);
    notify(store, 'info', `${name}: ${checkWords(check)}`);
    if (check.role) {
      notify(store, 'error', `${name}: ${check.role.role} can do more than read`, 'Open the connection in the sidebar to see what, and the SQL of a read-only role to use instead.');
    }
    await refreshConnections(store);
  } catch (err) {
    const p = problemOf(err);
    notify(store, 'error', `${name}: ${p.message}`, p.hint);
  }
}

export async function removeConnection(store: Store, name: string): Promise<void> {
  try {
    await api.removeConnection(name);
    await refreshConnections(store);
  } catch (err) {
    const p = problemOf(err);
    notify(store, 'error', `Could not remove ${name}: ${p.message}`, p.hint);
  }
}
