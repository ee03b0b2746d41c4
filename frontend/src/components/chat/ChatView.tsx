import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import * as api from '../../api';
import type { AgentEvent, DatasetSummary } from '../../api';
import { useDatasets } from '../../hooks/useDataset';
import { useActions } from '../../state/actions';
import { useStore, type AppState } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';
import { ExampleQuestions } from '../common/ExampleQuestions';
import { Icon } from '../common/Icon';
import { WelcomeScreen } from '../WelcomeScreen';
import { ConnectionAskEmpty, ConnectionChatTag } from '../connections/ConnectionChat';
import { Composer } from './Composer';
import { Turn } from './Turn';
import { RunAnnouncer } from './announce';
import { isSample, suggestQuestions } from './suggest';
import { ModelBanner } from './ModelBanner';
import { PrivacyChooser } from '../privacy/Privacy';
import './chat.css';

const noEvents: AgentEvent[] = [];

/** The conversation: its turns, streaming live, and the question box. */
export function ChatView() {
  const a = useActions();
  const chatId = useStore((s) => s.chatId);
  const turns = useStore((s) => (s.chatId ? s.turns[s.chatId] : undefined));
  const events = useStore((s) => s.events);
  const runId = useStore((s) => (s.chatId ? s.running[s.chatId] : undefined));
  const askError = useStore((s) => s.askErrors[s.chatId ?? '']);
  const datasets = useStore((s) => s.datasets);
  const chat = useStore((s) => s.chats.find((c) => c.id === s.chatId));
  const welcome = useStore(showsWelcome);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const lastTop = useRef(0);
  const hold = useRef(0);
  const running = runId !== undefined;
  const dismissAskError = () => a.dismissAskError();

  // Follow the stream while the user is at the bottom, also as charts and
  // markdown finish drawing after the render that added them.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  const column = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = scroller.current;
    const inner = column.current;
    if (!el || !inner || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(inner);
    return () => ro.disconnect();
  }, [chatId, turns === undefined]);
  useEffect(() => {
    pinned.current = true;
  }, [chatId]);

  const last = turns?.[turns.length - 1];
  const lastEvents = last ? (events[last.runId] ?? noEvents) : noEvents;
  const waiting = lastEvents.some((e) => e.type === 'run_finished' && e.finished?.status === 'needs_input');
  const empty = !turns || turns.length === 0;

  if (empty && welcome) {
    return <WelcomeScreen />;
  }

  return (
    <div className="chat">
      <header className="view-head">
        <h1 className="view-head__title">{chat?.name || (empty ? 'New conversation' : 'Conversation')}</h1>
        {chat?.connection && <ConnectionChatTag name={chat.connection} />}
      </header>
      <div
        className="chat__scroll"
        ref={scroller}
        // A click in the conversation (opening a step, following a finding)
        // means the user reads here: stop following the stream until they
        // scroll back down or ask again.
        onMouseDown={() => {
          pinned.current = false;
          hold.current = Date.now() + 1000;
        }}
        onScroll={(e) => {
          // Follow again once scrolled down to the bottom; any upward move
          // (the user's, or one to a finding's evidence) stops following.
          const el = e.currentTarget;
          const down = el.scrollTop >= lastTop.current;
          lastTop.current = el.scrollTop;
          // Scroll events lag a click by a frame: they do not re-pin right after one.
          if (Date.now() < hold.current) return;
          pinned.current = down && el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        <div className="chat__column" ref={column}>
          {empty && chat?.connection ? (
            <ConnectionAskEmpty name={chat.connection} onPick={(q) => a.focusComposer(q)} />
          ) : empty ? (
            <AskEmpty datasets={datasets} onPick={(q) => a.focusComposer(q)} />
          ) : (
            turns.map((t, i) => (
              <Turn
                key={t.runId}
                question={t.question}
                runId={t.runId}
                events={events[t.runId] ?? noEvents}
                latest={i === turns.length - 1}
                busy={running}
                onAnswer={(text) => {
                  pinned.current = true;
                  hold.current = 0;
                  void a.ask(text);
                }}
                onReport={() => chatId && void a.openReport(chatId, t.runId)}
                feedback={t.feedback}
                onVerdict={(verdict, note) => chatId && void a.giveFeedback(chatId, t.runId, verdict, note)}
                onFollowUp={() => a.focusComposer()}
                onRetry={() => {
                  if (!chatId) return;
                  pinned.current = true;
                  hold.current = 0;
                  void a.retry(chatId);
                }}
              />
            ))
          )}
        </div>
      </div>
      <RunAnnouncer runId={last?.runId} events={lastEvents} />
      <div className="chat__bottom">
        <div className="chat__column">
          <ModelBanner compact />
          {askError?.code === 'privacy' && <PrivacyChooser onChosen={dismissAskError} />}
          {askError && askError.code !== 'privacy' && (
            <ErrorNote
              title="The question was not sent"
              problem={askError}
              onDismiss={dismissAskError}
            />
          )}
          <Composer
            running={running}
            waitingForAnswer={waiting}
            onSend={(q) => {
              pinned.current = true;
              hold.current = 0;
              return a.ask(q);
            }}
            onStop={() => void a.cancelRun(chatId)}
          />
          <div className="chat__keys">
            <kbd>Enter</kbd> send · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>Esc</kbd> stop ·{' '}
            <kbd>Ctrl</kbd>+<kbd>K</kbd> focus
          </div>
        </div>
      </div>
    </div>
  );
}

/** showsWelcome says whether the main area shows the welcome screen: no data, no conversation. */
export function showsWelcome(s: AppState): boolean {
  return s.view.kind === 'chat' && s.chatId === null && s.datasets !== null && s.datasets.length === 0;
}

/** AskEmpty invites a first question about datasets (null while the workspace is still opening). */
function AskEmpty({ datasets: loaded, onPick }: { datasets: DatasetSummary[] | null; onPick: (q: string) => void }) {
  const datasets = loaded ?? [];
  // The sample's handpicked questions stay once it is loaded.
  const [sample, setSample] = useState<string[]>([]);
  const hasSample = datasets.some(isSample);
  useEffect(() => {
    if (!hasSample) return;
    let live = true;
    api
      .sampleQuestions()
      .then((q) => live && setSample(q))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [hasSample]);
  // The questions come from the columns of the first three: fetched whole.
  const examples = suggestQuestions(useDatasets(datasets, 3), sample);
  return (
    <div className="ask-empty">
      <Icon name="sparkle" size={28} className="ask-empty__icon" />
      <h2>What would you like to know?</h2>
      <p>
        Ask in plain words. Loupe looks at{' '}
        {loaded === null ? 'your tables' : datasets.length === 1 ? datasets[0]!.name : `your ${datasets.length.toLocaleString('en')} tables`},
        runs read-only SQL, draws charts and tells you what it found.
      </p>
      <ExampleQuestions questions={examples} onPick={onPick} />
    </div>
  );
}
