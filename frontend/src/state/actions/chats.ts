// Conversations: listing, opening, asking (and the run's streamed events), retrying, canceling, reports.
import * as api from '../../api';
import type { AgentEvent, Report } from '../../api';
import { problemOf } from '../problem';
import type { Store } from '../store';
import { notify, notifyProblem } from './notices';
import { show } from './view';

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
      return {
        turns: { ...s.turns, [id]: chat.turns.map((t) => ({ question: t.question, runId: t.runId, ...(t.feedback ? { feedback: t.feedback } : {}) })) },
        events,
      };
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

// ---- verdicts

/**
 * giveFeedback records the verdict on an answer (up: verified for later
 * questions; down: wrong, with why) and shows it on the turn.
 */
export async function giveFeedback(store: Store, chatId: string, runId: string, verdict: 'up' | 'down', note = ''): Promise<void> {
  try {
    const fb = await api.feedback(chatId, runId, verdict, note);
    store.set((s) => ({
      turns: { ...s.turns, [chatId]: (s.turns[chatId] ?? []).map((t) => (t.runId === runId ? { ...t, feedback: fb } : t)) },
    }));
    notify(store, 'info', verdict === 'up' ? 'Marked as verified: later questions will build on this answer' : 'Marked as wrong: its queries will not be offered again');
  } catch (err) {
    notifyProblem(store, err, 'Could not save the verdict');
  }
}

// ---- reports

/**
 * openReport shows the report view with the run's report: the one kept in
 * the conversation store when there is one (written in an earlier
 * session, too), else a new one of the whole conversation written now;
 * again writes a new one, of the questions turns picks (numbers from 1;
 * empty or absent: every question).
 */
export async function openReport(store: Store, chatId: string, runId: string, again = false, turns: number[] = []): Promise<void> {
  show(store, { kind: 'report', chatId, runId });
  const cur = store.get().reports[runId];
  if (cur && (cur.writing || (cur.report && !again))) return;
  store.set((s) => ({ reports: { ...s.reports, [runId]: { text: '', writing: true } } }));
  try {
    const kept = again ? null : await api.getReport(chatId, runId);
    const report = kept ?? (await api.writeReport(chatId, runId, turns));
    store.set((s) => ({ reports: { ...s.reports, [runId]: { text: report.markdown, writing: false, report } } }));
  } catch (err) {
    const error = problemOf(err);
    store.set((s) => ({
      reports: { ...s.reports, [runId]: { text: s.reports[runId]?.text ?? '', writing: false, error } },
    }));
  }
}

/**
 * refreshReport runs the queries of the run's report again on the current data and shows the new version
 * (it opens with "What changed"). It throws what the backend said, for the caller to show.
 */
export async function refreshReport(store: Store, chatId: string, runId: string): Promise<Report> {
  const report = await api.refreshReport(chatId, runId);
  store.set((s) => ({ reports: { ...s.reports, [runId]: { text: report.markdown, writing: false, report } } }));
  return report;
}

export function onReportDelta(store: Store, d: { runId: string; text: string; reset?: boolean }): void {
  store.set((s) => {
    const cur = s.reports[d.runId] ?? { text: '', writing: true };
    const text = d.reset ? d.text : cur.text + d.text;
    return { reports: { ...s.reports, [d.runId]: { ...cur, text } } };
  });
}

/** dismissAskError forgets the error of the shown conversation's last question. */
export function dismissAskError(store: Store): void {
  store.set((s) => {
    const e = { ...s.askErrors };
    delete e[s.chatId ?? ''];
    return { askErrors: e };
  });
}
