import { useEffect, useMemo, useState } from 'react';
import * as api from '../../api';
import type { ChatHit, ChatSummary, DatasetSummary } from '../../api';
import { basename, DATE_GROUPS, dateGroup, rows } from '../../format';
import { useActions } from '../../state/actions';
import { useDataset } from '../../hooks/useDataset';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import { InlineEdit } from '../common/InlineEdit';
import { Menu } from '../common/Menu';
import { ConnectionsSection } from '../connections/ConnectionsSection';
import { NotesDialog } from '../data/NotesDialog';
import { LoupeMark } from '../LoupeMark';
import './sidebar.css';

/** The left sidebar: datasets, conversations, and the way to the console and settings. */
export function Sidebar() {
  const a = useActions();
  const view = useStore((s) => s.view);
  return (
    <nav className="sidebar" aria-label="Sidebar">
      <div className="sidebar__brand">
        <LoupeMark size={26} />
        <span className="sidebar__name">Loupe</span>
        <button
          type="button"
          className="icon-button"
          aria-label="New conversation"
          title="New conversation"
          onClick={() => void a.openChat(null)}
        >
          <Icon name="plus" />
        </button>
      </div>
      <div className="sidebar__scroll">
        <Datasets />
        <ConnectionsSection />
        <Chats />
      </div>
      <div className="sidebar__foot">
        <button
          type="button"
          className={view.kind === 'console' ? 'nav nav--active' : 'nav'}
          onClick={() => a.openConsole()}
        >
          <Icon name="terminal" /> SQL console
        </button>
        <button
          type="button"
          className={view.kind === 'settings' ? 'nav nav--active' : 'nav'}
          onClick={() => a.show({ kind: 'settings' })}
        >
          <Icon name="settings" /> Settings
        </button>
      </div>
    </nav>
  );
}

/**
 * SIDEBAR_DATASETS is the most datasets the sidebar lists at once: every
 * row is a few elements of the page, and WebKitGTK took 8 s to show a
 * workspace of 10,000 small files (a folder of daily exports) listed
 * whole. The filter finds the others.
 */
export const SIDEBAR_DATASETS = 100;

/** FILTER_FROM is how many datasets make the sidebar offer its filter. */
const FILTER_FROM = 8;

/** shownDatasets returns the datasets whose name or file holds filter (all for none), the first SIDEBAR_DATASETS of them, and how many matched. */
export function shownDatasets(all: readonly DatasetSummary[], filter: string): { list: DatasetSummary[]; matched: number } {
  const q = filter.trim().toLowerCase();
  const matching = q ? all.filter((d) => d.name.toLowerCase().includes(q) || basename(d.source).toLowerCase().includes(q)) : all;
  return { list: matching.slice(0, SIDEBAR_DATASETS), matched: matching.length };
}

function Datasets() {
  const a = useActions();
  const datasets = useStore((s) => s.datasets);
  const view = useStore((s) => s.view);
  const [editing, setEditing] = useState<string | null>(null);
  const [noting, setNoting] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const noted = useDataset(datasets?.find((d) => d.name === noting));
  const shown = useMemo(() => shownDatasets(datasets ?? [], filter), [datasets, filter]);
  return (
    <section className="side-section" aria-label="Datasets">
      {noted && <NotesDialog dataset={noted} onClose={() => setNoting(null)} />}
      <div className="side-section__head">
        <span>Datasets</span>
        <span className="side-section__actions">
          <button type="button" className="icon-button" aria-label="Open a folder" title="Open a folder of data files" onClick={() => void a.chooseFolder()}>
            <Icon name="folder" />
          </button>
          <button type="button" className="icon-button" aria-label="Open files" title="Open files (Ctrl+O)" onClick={() => void a.chooseAndOpen()}>
            <Icon name="plus" />
          </button>
        </span>
      </div>
      {datasets !== null && datasets.length === 0 && (
        <div className="side-empty">
          No data yet.{' '}
          <button type="button" className="link" onClick={() => void a.chooseAndOpen()}>
            Open files
          </button>{' '}
          or drop them here.
        </div>
      )}
      {datasets !== null && datasets.length >= FILTER_FROM && (
        <label className="side-search">
          <Icon name="search" size={14} />
          <input
            type="search"
            placeholder={`Filter ${datasets.length.toLocaleString('en')} datasets`}
            aria-label="Filter datasets"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </label>
      )}
      {filter.trim() !== '' && shown.matched === 0 && <div className="side-empty">No dataset matches “{filter.trim()}”.</div>}
      <ul className="side-list">
        {shown.list.map((d) => (
          <li key={d.name}>
            <DatasetItem
              d={d}
              active={view.kind === 'dataset' && view.name === d.name}
              editing={editing === d.name}
              onEdit={(on) => setEditing(on ? d.name : null)}
              onNotes={() => setNoting(d.name)}
            />
          </li>
        ))}
      </ul>
      {shown.matched > shown.list.length && (
        <div className="side-empty" role="status">
          {(shown.matched - shown.list.length).toLocaleString('en')} more not listed: type in the filter to find them.
        </div>
      )}
    </section>
  );
}

function DatasetItem({
  d,
  active,
  editing,
  onEdit,
  onNotes,
}: {
  d: DatasetSummary;
  active: boolean;
  editing: boolean;
  onEdit: (on: boolean) => void;
  onNotes: () => void;
}) {
  const a = useActions();
  const source = d.part ? `${basename(d.source)} · ${d.part}` : basename(d.source);
  return (
    <div
      className={active ? 'side-item side-item--active' : 'side-item'}
      data-testid="dataset"
      onClick={() => !editing && a.show({ kind: 'dataset', name: d.name, mode: 'preview' })}
      title={d.note ? `${d.source}\n\n${d.note}` : d.source}
    >
      {editing ? (
        <>
          <Icon name="table" className="side-item__icon" />
          <span className="side-item__main">
            <InlineEdit
              value={d.name}
              label="Dataset name"
              onCancel={() => onEdit(false)}
              onCommit={(v) => {
                onEdit(false);
                void a.renameDataset(d.name, v);
              }}
            />
          </span>
        </>
      ) : (
        // The row's one button: a menu button beside it, not inside it.
        <button
          type="button"
          className="side-item__open"
          aria-current={active ? 'page' : undefined}
          onClick={(e) => {
            e.stopPropagation();
            a.show({ kind: 'dataset', name: d.name, mode: 'preview' });
          }}
        >
          <Icon name="table" className="side-item__icon" />
          <span className="side-item__main">
            <span className="side-item__name">{d.name}</span>
            <span className="side-item__sub">
              {rows(d.rows, true)} · {source}
            </span>
            {d.warnings.length > 0 && (
              <span className="side-item__warn" title={d.warnings.join('\n')} data-testid="dataset-warning-count">
                <Icon name="warning" size={11} /> {d.warnings.length} {d.warnings.length === 1 ? 'warning' : 'warnings'}
              </span>
            )}
          </span>
        </button>
      )}
      <Menu
        label={`Actions for ${d.name}`}
        items={[
          { label: 'Preview', onSelect: () => a.show({ kind: 'dataset', name: d.name, mode: 'preview' }) },
          { label: 'Profile', onSelect: () => a.show({ kind: 'dataset', name: d.name, mode: 'profile' }) },
          { label: 'Query in console', onSelect: () => a.openConsole(`SELECT *\nFROM ${quoteIdent(d.name)}\nLIMIT 100`) },
          { label: 'Rename', onSelect: () => onEdit(true) },
          { label: 'Notes…', onSelect: onNotes },
          { label: 'Refresh', onSelect: () => void a.refreshDataset(d.name) },
          { label: 'Remove', danger: true, confirm: 'Click to remove', onSelect: () => void a.removeDataset(d.name) },
        ]}
      />
    </div>
  );
}

/** A table name as DuckDB SQL, quoted only when it must be. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function Chats() {
  const a = useActions();
  const chats = useStore((s) => s.chats);
  const chatId = useStore((s) => s.chatId);
  const view = useStore((s) => s.view);
  const running = useStore((s) => s.running);
  const [query, setQuery] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const groups = useMemo(() => groupChats(chats, query), [chats, query]);
  const hits = useChatSearch(query, chats);
  return (
    <section className="side-section" aria-label="Conversations">
      <div className="side-section__head">
        <span>Conversations</span>
      </div>
      {chats.length > 0 && (
        <label className="side-search">
          <Icon name="search" size={14} />
          <input
            type="search"
            placeholder="Search conversations"
            aria-label="Search conversations"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
      )}
      {chats.length === 0 && <div className="side-empty">Your questions and answers will be kept here.</div>}
      {hits !== null && <ChatHits query={query} hits={hits} />}
      {hits === null && chats.length > 0 && groups.length === 0 && <div className="side-empty">No conversation matches “{query}”.</div>}
      {hits === null && groups.map(([group, list]) => (
        <div key={group} className="side-group">
          <div className="side-group__title">{group}</div>
          <ul className="side-list">
            {list.map((c) => (
              <li key={c.id}>
                <div
                  className={c.id === chatId && view.kind === 'chat' ? 'side-item side-item--active' : 'side-item'}
                  data-testid="chat"
                  title={c.connection ? `About the database ${c.connection}` : undefined}
                  onClick={() => editing !== c.id && void a.openChat(c.id)}
                >
                  {editing === c.id ? (
                    <>
                      <Icon name={c.connection ? 'database' : 'chat'} className="side-item__icon" />
                      <span className="side-item__main">
                        <InlineEdit
                          value={c.name}
                          label="Conversation name"
                          onCancel={() => setEditing(null)}
                          onCommit={(v) => {
                            setEditing(null);
                            void a.renameChat(c.id, v);
                          }}
                        />
                      </span>
                    </>
                  ) : (
                    <button
                      type="button"
                      className="side-item__open"
                      aria-current={c.id === chatId && view.kind === 'chat' ? 'page' : undefined}
                      onClick={(e) => {
                        e.stopPropagation();
                        void a.openChat(c.id);
                      }}
                    >
                      <Icon name={c.connection ? 'database' : 'chat'} className="side-item__icon" />
                      <span className="side-item__main">
                        <span className="side-item__name">{c.name || 'New conversation'}</span>
                      </span>
                    </button>
                  )}
                  {running[c.id] && <span className="spinner spinner--small" aria-label="running" />}
                  <Menu
                    label={`Actions for ${c.name || 'conversation'}`}
                    items={[
                      { label: 'Rename', onSelect: () => setEditing(c.id) },
                      { label: 'Delete', danger: true, confirm: 'Click to delete', onSelect: () => void a.deleteChat(c.id) },
                    ]}
                  />
                </div>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

/** groupChats filters chats by query and groups them by date, newest first. */
export function groupChats(chats: readonly ChatSummary[], query: string, now = new Date()): [string, ChatSummary[]][] {
  const q = query.trim().toLowerCase();
  const sorted = chats
    .filter((c) => q === '' || (c.name || '').toLowerCase().includes(q))
    .slice()
    .sort((x, y) => new Date(y.updated).getTime() - new Date(x.updated).getTime());
  const out: [string, ChatSummary[]][] = [];
  for (const g of DATE_GROUPS) {
    const list = sorted.filter((c) => dateGroup(c.updated || c.created, now) === g);
    if (list.length > 0) out.push([g, list]);
  }
  return out;
}

/**
 * useChatSearch searches the conversations' questions and answers for
 * query (a moment after the last keystroke, again when the list changes):
 * the hits of the latest search, or null while there is none for query
 * (the list then filters by name alone).
 */
function useChatSearch(query: string, chats: readonly ChatSummary[]): ChatHit[] | null {
  const [found, setFound] = useState<{ query: string; hits: ChatHit[] } | null>(null);
  const q = query.trim();
  useEffect(() => {
    if (q === '') return;
    let live = true;
    const t = setTimeout(() => {
      api
        .searchChats(q)
        .then((hits) => live && setFound({ query: q, hits }))
        .catch(() => live && setFound(null));
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, chats]);
  return q !== '' && found?.query === q ? found.hits : null;
}

const WHERE: Record<ChatHit['in'], string> = { title: 'in the name', question: 'in a question', answer: 'in an answer' };

/** The conversations a search found, each with the passage where it found the text, the text marked. */
function ChatHits({ query, hits }: { query: string; hits: ChatHit[] }) {
  const a = useActions();
  const chatId = useStore((s) => s.chatId);
  const view = useStore((s) => s.view);
  if (hits.length === 0) return <div className="side-empty">No conversation holds “{query.trim()}”.</div>;
  return (
    <ul className="side-list" aria-label="Conversations found" data-testid="chat-hits">
      {hits.map((h) => {
        const active = h.id === chatId && view.kind === 'chat';
        return (
          <li key={h.id}>
            <button
              type="button"
              className={active ? 'side-hit side-hit--active' : 'side-hit'}
              aria-current={active ? 'page' : undefined}
              data-testid="chat-hit"
              onClick={() => void a.openChat(h.id)}
            >
              <span className="side-hit__name">
                <Icon name={h.connection ? 'database' : 'chat'} size={13} className="side-item__icon" />
                <span className="side-hit__title">{h.name || 'New conversation'}</span>
              </span>
              {h.in !== 'title' && (
                <span className="side-hit__snippet" data-testid="chat-hit-snippet">
                  {h.snippet.before}
                  <mark>{h.snippet.match}</mark>
                  {h.snippet.after}
                </span>
              )}
              <span className="side-hit__where">
                {WHERE[h.in]}
                {h.matches > 1 ? ` · ${h.matches} messages` : ''}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
