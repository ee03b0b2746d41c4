import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { Connection, ConnectionSchema, ConnectionTable } from '../../api';
import { formatCount } from '../../format';
import { useActions } from '../../state/actions';
import { problemOf, type Problem } from '../../state/problem';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import { Menu } from '../common/Menu';
import { NotesDialog } from '../data/NotesDialog';
import { PrivateColumnsDialog } from '../data/PrivateColumnsDialog';
import { ConnectionDialog } from './ConnectionDialog';
import { ImportDialog } from './ImportDialog';
import { RoleWarningNote } from './RoleWarningNote';
import './connections.css';
import { kindName, sqlName, whereOf } from './names';

type Dialog = { kind: 'add' } | { kind: 'edit'; c: Connection } | { kind: 'import'; name: string; sql: string } | null;

/**
 * The sidebar's databases: each saved connection with its tables, and the
 * ways to ask about it, import from it, test, edit and remove it.
 */
export function ConnectionsSection() {
  const a = useActions();
  const connections = useStore((s) => s.connections);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [reload, setReload] = useState<Record<string, number>>({});
  useEffect(() => {
    if (connections === null) void a.refreshConnections();
  }, [a, connections]);

  const expand = (name: string, on = true) => setOpen((o) => ({ ...o, [name]: on }));
  const refreshTables = (name: string) => {
    expand(name);
    setReload((r) => ({ ...r, [name]: (r[name] ?? 0) + 1 }));
  };
  return (
    <section className="side-section" aria-label="Databases">
      <div className="side-section__head">
        <span>Databases</span>
        <button type="button" className="icon-button" aria-label="Add a connection" title="Connect a database" onClick={() => setDialog({ kind: 'add' })}>
          <Icon name="plus" />
        </button>
      </div>
      {connections !== null && connections.length === 0 && (
        <div className="side-empty">
          Ask about a PostgreSQL, MySQL or SQLite database where it lives.{' '}
          <button type="button" className="link" onClick={() => setDialog({ kind: 'add' })}>
            Connect one
          </button>
        </div>
      )}
      <ul className="side-list">
        {(connections ?? []).map((conn) => (
          <li key={conn.name}>
            <ConnectionItem
              conn={conn}
              open={open[conn.name] ?? false}
              reload={reload[conn.name] ?? 0}
              onToggle={() => expand(conn.name, !open[conn.name])}
              onAsk={() => void a.askAbout(conn.name)}
              onImport={(sql) => setDialog({ kind: 'import', name: conn.name, sql })}
              onTest={() => void a.testConnection(conn.name)}
              onRefresh={() => refreshTables(conn.name)}
              onEdit={() => setDialog({ kind: 'edit', c: conn })}
              onRemove={() => void a.removeConnection(conn.name)}
            />
          </li>
        ))}
      </ul>
      {(dialog?.kind === 'add' || dialog?.kind === 'edit') && (
        <ConnectionDialog
          editing={dialog.kind === 'edit' ? dialog.c : null}
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            a.notify('info', `Saved connection ${saved.name}`);
            void a.refreshConnections();
            refreshTables(saved.name);
          }}
        />
      )}
      {dialog?.kind === 'import' && (
        <ImportDialog
          connection={dialog.name}
          initialSQL={dialog.sql}
          onClose={() => setDialog(null)}
          onImported={(d) => {
            setDialog(null);
            a.notify('info', `Imported ${d.name}: ${formatCount(d.rows)} rows`);
            a.show({ kind: 'dataset', name: d.name, mode: 'preview' });
          }}
        />
      )}
    </section>
  );
}

function ConnectionItem({
  conn,
  open,
  reload,
  onToggle,
  onAsk,
  onImport,
  onTest,
  onRefresh,
  onEdit,
  onRemove,
}: {
  conn: Connection;
  open: boolean;
  reload: number;
  onToggle: () => void;
  onAsk: () => void;
  onImport: (sql: string) => void;
  onTest: () => void;
  onRefresh: () => void;
  onEdit: () => void;
  onRemove: () => void;
}) {
  return (
    <div className="conn" data-testid="connection">
      <div className={open ? 'side-item conn__item conn__item--open' : 'side-item conn__item'} title={conn.url} onClick={onToggle}>
        <button
          type="button"
          className="side-item__open"
          aria-expanded={open}
          onClick={(e) => {
            e.stopPropagation();
            onToggle();
          }}
        >
          <Icon name="chevron" size={12} className="conn__chevron" />
          <Icon name="database" className="side-item__icon" />
          <span className="side-item__main">
            <span className="side-item__name">{conn.name}</span>
            <span className="side-item__sub">
              {kindName(conn.kind)} · {whereOf(conn)}
            </span>
          </span>
        </button>
        {conn.role && (
          <span className="conn__role-badge" title={`${conn.role.role} can do more than read: open the connection to see what`} data-testid="role-badge">
            <Icon name="warning" size={14} />
          </span>
        )}
        <Menu
          label={`Actions for ${conn.name}`}
          items={[
            { label: 'Ask about this database', onSelect: onAsk },
            { label: 'Import query result…', onSelect: () => onImport('') },
            { label: 'Test connection', onSelect: onTest },
            { label: 'Refresh tables', onSelect: onRefresh },
            { label: 'Edit…', onSelect: onEdit },
            { label: 'Remove', danger: true, confirm: 'Click to remove', onSelect: onRemove },
          ]}
        />
      </div>
      {open && conn.role && (
        <div className="conn__body">
          <RoleWarningNote warning={conn.role} />
        </div>
      )}
      {open && <ConnectionTables name={conn.name} reload={reload} onAsk={onAsk} onImport={onImport} />}
    </div>
  );
}

/** A connection's tables, read when it is opened in the sidebar. */
function ConnectionTables({
  name,
  reload,
  onAsk,
  onImport,
}: {
  name: string;
  reload: number;
  onAsk: () => void;
  onImport: (sql: string) => void;
}) {
  const [schema, setSchema] = useState<ConnectionSchema | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [tries, setTries] = useState(0);
  const [filter, setFilter] = useState('');
  const [noting, setNoting] = useState<ConnectionTable | null>(null);
  const [hiding, setHiding] = useState<ConnectionTable | null>(null);
  const { refreshConnections: refresh } = useActions();
  useEffect(() => {
    let live = true;
    setError(null);
    setSchema(null);
    api
      .connectionTables(name, reload > 0 || tries > 0)
      .then((s) => {
        if (!live) return;
        setSchema(s);
        // Connecting read the role's privileges: show a warning it found.
        void refresh();
      })
      .catch((err: unknown) => live && setError(problemOf(err)));
    return () => {
      live = false;
    };
  }, [name, reload, tries, refresh]);
  return (
    <div className="conn__body" data-testid="connection-tables">
      <div className="conn__actions">
        <button type="button" className="button button--small button--primary" onClick={onAsk}>
          <Icon name="chat" size={14} /> Ask about it
        </button>
        <button type="button" className="button button--small" onClick={() => onImport('')}>
          <Icon name="download" size={14} /> Import…
        </button>
      </div>
      {schema === null && error === null && (
        <div className="conn__status">
          <span className="spinner spinner--small" /> Reading the schema…
        </div>
      )}
      {error && (
        <div className="conn__error" role="alert">
          <div className="conn__error-message">{error.message}</div>
          {error.hint && <div className="conn__error-hint">{error.hint}</div>}
          <button type="button" className="link" onClick={() => setTries((t) => t + 1)}>
            Try again
          </button>
        </div>
      )}
      {schema && (
        <>
          <div className="conn__status">
            {schema.dialect} {schema.version.split(/\s/)[0]} · {schema.tables.length} {schema.tables.length === 1 ? 'table' : 'tables'}
          </div>
          {schema.tables.length > FILTER_FROM && (
            <label className="side-search conn__filter">
              <Icon name="search" size={13} />
              <input type="search" placeholder="Filter tables" aria-label={`Filter the tables of ${name}`} value={filter} onChange={(e) => setFilter(e.target.value)} />
            </label>
          )}
          <ul className="conn__tables">
            {matching(schema.tables, filter).map((t) => (
              <li key={t.name} className="conn__table-row">
                <button
                  type="button"
                  className="conn__table"
                  data-testid="connection-table"
                  title={`${t.name}: ${t.columns.map((c) => c.name).join(', ')}${t.note || t.comment ? `\n${t.note || t.comment}` : ''}\nClick to import its rows into the workspace`}
                  onClick={() => onImport(`SELECT *\nFROM ${sqlName(t.name, schema.dialect)}`)}
                >
                  <Icon name="table" size={13} />
                  <span className="conn__table-name">{t.name}</span>
                  <span className="conn__table-rows">{tableNote(t)}</span>
                </button>
                <button
                  type="button"
                  className={t.note ? 'icon-button conn__note conn__note--set' : 'icon-button conn__note'}
                  aria-label={`Notes on ${t.name}`}
                  title={t.note ? `Notes… (${t.note})` : 'Notes…: say what the table holds, for the agent'}
                  onClick={() => setNoting(t)}
                >
                  <Icon name="pencil" size={12} />
                </button>
                <button
                  type="button"
                  className="icon-button conn__note"
                  aria-label={`Private columns of ${t.name}`}
                  title="Private columns…: values a hosted model sees only as placeholders"
                  onClick={() => setHiding(t)}
                >
                  <Icon name="lock" size={12} />
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {hiding && (
        <PrivateColumnsDialog
          table={hiding.name}
          load={() => api.connectionPrivateColumns(name, hiding.name)}
          onSet={(column, isPrivate) => api.setConnectionPrivateColumn(name, hiding.name, column, isPrivate)}
          onClose={() => setHiding(null)}
        />
      )}
      {noting && (
        <NotesDialog
          dataset={noting}
          onClose={() => setNoting(null)}
          onSave={async (note, columns) => {
            await api.setConnectionNote(name, noting.name, note, columns);
            setSchema((s) => s && { ...s, tables: s.tables.map((t) => (t.name === noting.name ? withNotes(t, note, columns) : t)) });
          }}
        />
      )}
    </div>
  );
}

/** t with the notes just saved: the table's, and the columns' named in columns. */
function withNotes(t: ConnectionTable, note: string, columns: Record<string, string>): ConnectionTable {
  return {
    ...t,
    note: note.trim(),
    columns: t.columns.map((c) => (c.name in columns ? { ...c, note: (columns[c.name] ?? '').trim() } : c)),
  };
}

/** Above this many tables the list gets a filter box. */
const FILTER_FROM = 12;

/** The tables whose name (or a column's, or a note) holds every word of filter. */
function matching(tables: ConnectionTable[], filter: string): ConnectionTable[] {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return tables;
  return tables.filter((t) => {
    const text = `${t.name} ${t.note ?? ''} ${t.columns.map((c) => c.name).join(' ')}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

function tableNote(t: ConnectionTable): string {
  if (t.kind !== 'table' && t.kind !== '') return t.kind;
  return t.rows >= 0 ? `~${formatCount(t.rows, true)}` : '';
}
