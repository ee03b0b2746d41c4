// A conversation bound to a database connection: the database named in the
// chat's header, and an empty state that speaks of that database.
import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { ConnectionSchema, ConnectionTable } from '../../api';
import { problemOf } from '../../state/problem';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import { ExampleQuestions } from '../common/ExampleQuestions';
import { kindName, whereOf } from './names';
import './connections.css';
import '../chat/chat.css';

/**
 * ConnectionChatTag names, in the chat's header, the database the
 * conversation asks (name, engine, where), or says it was removed.
 */
export function ConnectionChatTag({ name }: { name: string }) {
  const conn = useStore((s) => s.connections?.find((c) => c.name === name));
  const gone = useStore((s) => s.connections !== null && !s.connections.some((c) => c.name === name));
  return (
    <div className={`conn-tag${gone ? ' conn-tag--gone' : ''}`} data-testid="connection-chat-tag" role="note">
      <Icon name="database" size={14} className="conn-tag__icon" />
      <strong>{name}</strong>
      {conn && (
        <span className="conn-tag__where">
          {kindName(conn.kind)} · {whereOf(conn)}
        </span>
      )}
      <span className="conn-tag__note">{gone ? 'removed: add it again to ask here' : 'read-only'}</span>
    </div>
  );
}

/**
 * ConnectionAskEmpty is the empty state of a conversation about the
 * connection name: what it holds (from its tables) and questions worth
 * asking of them.
 */
export function ConnectionAskEmpty({ name, onPick }: { name: string; onPick: (q: string) => void }) {
  const conn = useStore((s) => s.connections?.find((c) => c.name === name));
  const [schema, setSchema] = useState<ConnectionSchema | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setSchema(null);
    setProblem(null);
    api
      .connectionTables(name)
      .then((s) => live && setSchema(s))
      .catch((e: unknown) => {
        const p = problemOf(e);
        if (live) setProblem(p.hint ? `${p.message} ${p.hint}` : p.message);
      });
    return () => {
      live = false;
    };
  }, [name]);

  const kind = schema?.dialect ?? (conn ? kindName(conn.kind) : '');
  const tables = schema?.tables ?? [];
  const examples = schema ? connectionQuestions(tables) : [];
  return (
    <div className="ask-empty" data-testid="connection-ask-empty">
      <Icon name="database" size={28} className="ask-empty__icon" />
      <h2>What would you like to know about {name}?</h2>
      <p>
        Ask in plain words. Loupe asks <strong>{name}</strong>, {kind ? `a ${kind} database` : 'a database'}
        {schema ? ` with ${tableCount(tables.length)}${tableList(tables)}` : ''}: its queries run there, read-only, and it
        tells you what it found.
      </p>
      {problem && (
        <p className="conn-empty__problem" role="alert">
          {problem}
        </p>
      )}
      <ExampleQuestions questions={examples} onPick={onPick} />
    </div>
  );
}

function tableCount(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'table' : 'tables'}`;
}

/** A few of the tables by name, biggest first: " (Track, InvoiceLine, Invoice and 8 more)". */
function tableList(tables: readonly ConnectionTable[]): string {
  if (tables.length === 0) return '';
  const shown = bySize(tables).slice(0, 3).map((t) => t.name);
  const more = tables.length - shown.length;
  if (more === 0) return ` (${shown.join(', ')})`;
  return ` (${shown.join(', ')} and ${more} more)`;
}

function bySize(tables: readonly ConnectionTable[]): ConnectionTable[] {
  return [...tables].sort((a, b) => b.rows - a.rows || b.columns.length - a.columns.length || a.name.localeCompare(b.name));
}

/**
 * connectionQuestions makes up to four questions from a database's tables:
 * counts across the links its columns name (Track.AlbumId → "Which album
 * has the most tracks?", to a table with a text column to name its rows),
 * change over time where a table has a date, and what the biggest table
 * holds. Link tables (nothing but keys) ask nothing.
 */
export function connectionQuestions(tables: readonly ConnectionTable[]): string[] {
  const out: string[] = [];
  const add = (q: string) => {
    if (!out.includes(q)) out.push(q);
  };
  const sorted = bySize(tables).filter((t) => !t.columns.every((c) => keyOf(c.name) !== null));
  const byKey = new Map(tables.map((t) => [bare(t.name).toLowerCase(), t]));
  const named = (t: ConnectionTable) => t.columns.some((c) => /CHAR|TEXT|STRING|ENUM/i.test(c.type));
  let links = 0;
  for (const t of sorted) {
    for (const c of t.columns) {
      const key = keyOf(c.name);
      const other = key === null ? undefined : (byKey.get(key) ?? byKey.get(plural(key)));
      if (!other || other === t || !named(other)) continue;
      add(`Which ${singular(words(bare(other.name)))} has the most ${plural(words(bare(t.name)))}?`);
      links++;
      break;
    }
    if (links >= 2) break;
  }
  const dated = sorted.find((t) => t.columns.some((c) => /DATE|TIME/i.test(c.type)));
  if (dated) add(`How do ${plural(words(bare(dated.name)))} change over time?`);
  const biggest = sorted[0];
  if (biggest) add(`What is in the ${biggest.name} table?`);
  return out.slice(0, 4);
}

/** The table a key column names, lower case ("GenreId", "genre_id" → "genre"); null for other columns. */
function keyOf(column: string): string | null {
  const m = /^(.+?)_?id$/i.exec(column);
  return m ? m[1]!.toLowerCase() : null;
}

/** The table's own name, without its schema. */
function bare(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** InvoiceLine, invoice_line → "invoice line". */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

function plural(w: string): string {
  if (/s$/.test(w)) return w;
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  return `${w}s`;
}

function singular(w: string): string {
  if (/ies$/.test(w)) return `${w.slice(0, -3)}y`;
  if (/[^s]s$/.test(w)) return w.slice(0, -1);
  return w;
}
