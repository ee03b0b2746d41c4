import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { HistoryEntry } from '../../api';
import { useActions } from '../../state/actions';
import { problemOf, type Problem } from '../../state/problem';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';

/**
 * The workspace's query history beside the console: every query run from
 * it, newest first, with when, how long, and its rows or error; searchable
 * by SQL or error. Choosing one opens it in a tab of its own.
 */
export function QueryHistory({ onClose }: { onClose: () => void }) {
  const a = useActions();
  const runs = useStore((s) => s.consoleRuns);
  const [search, setSearch] = useState('');
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [cleared, setCleared] = useState(0);

  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      api
        .queryHistory(search, 200)
        .then((list) => {
          if (!live) return;
          setEntries(list);
          setProblem(null);
        })
        .catch((err) => live && setProblem(problemOf(err)));
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [search, runs, cleared]);

  const clear = async () => {
    if (!confirming) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    try {
      await api.clearQueryHistory();
      setCleared((n) => n + 1);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };

  return (
    <aside className="history" id="console-history" aria-label="Query history">
      <div className="history__head">
        <h2 className="history__title">History</h2>
        <span className="view-head__spacer" />
        {entries !== null && entries.length > 0 && search === '' && (
          <button type="button" className="chip" onClick={() => void clear()} onBlur={() => setConfirming(false)}>
            {confirming ? 'Click again to clear' : 'Clear'}
          </button>
        )}
        <button type="button" className="icon-button" aria-label="Close the history" onClick={onClose}>
          <Icon name="x" size={13} />
        </button>
      </div>
      <label className="side-search history__search">
        <Icon name="search" size={14} />
        <input
          type="search"
          placeholder="Search queries and errors"
          aria-label="Search the query history"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
      </label>
      {problem && (
        <div className="history__note history__note--error" role="alert">
          {problem.message} {problem.hint}
        </div>
      )}
      {entries !== null && entries.length === 0 && !problem && (
        <div className="history__note">{search ? `No query matches “${search}”.` : 'The queries you run here will be kept here.'}</div>
      )}
      <ul className="history__list">
        {(entries ?? []).map((e) => (
          <li key={e.id}>
            <button
              type="button"
              className="history__item"
              data-testid="history-entry"
              title="Open in a new tab"
              onClick={() => a.openConsole(e.sql)}
            >
              <code className="history__sql">{e.sql}</code>
              <span className={`history__meta history__meta--${e.outcome}`} title={e.error}>
                <time dateTime={e.at}>{when(e.at)}</time> · {duration(e.durationMs)} · {outcome(e)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** when is the time of day of at, with the date when it was not today. */
export function when(at: string, now = new Date()): string {
  const d = new Date(at);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === now.toDateString() ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function outcome(e: HistoryEntry): string {
  switch (e.outcome) {
    case 'done':
      return `${e.rows.toLocaleString()} ${e.rows === 1 ? 'row' : 'rows'}`;
    case 'canceled':
      return 'stopped';
    default:
      return `failed: ${e.error ?? ''}`;
  }
}
