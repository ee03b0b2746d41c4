import { useEffect, useRef, useState } from 'react';
import * as api from '../../api';
import type { Connection, ConnectionCheck, ConnectionInput, TLSMode } from '../../api';
import { basename } from '../../format';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import { checkWords } from '../../state/actions';
import { ModalForm } from '../common/ModalForm';
import { RoleWarningNote } from './RoleWarningNote';
import readOnlyRole from './readOnlyRole.json';
import './connections.css';
import '../settings/settings.css';

/** The ways to describe a connection, as the dialog offers them. */
export type Mode = 'postgres' | 'mysql' | 'sqlite' | 'url';

const MODES: { mode: Mode; label: string }[] = [
  { mode: 'postgres', label: 'PostgreSQL' },
  { mode: 'mysql', label: 'MySQL / MariaDB' },
  { mode: 'sqlite', label: 'SQLite file' },
  { mode: 'url', label: 'URL' },
];

const TLS_MODES: { mode: TLSMode; label: string }[] = [
  { mode: 'prefer', label: 'Prefer — encrypt when the server offers it' },
  { mode: 'require', label: 'Require — always encrypt, certificate not checked' },
  { mode: 'verify-full', label: 'Verify — encrypt and check the certificate and host' },
  { mode: 'disable', label: 'Disable — never encrypt (trusted networks only)' },
];

/** The dialog's fields, as typed. */
export interface Form {
  mode: Mode;
  name: string;
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
  tls: TLSMode;
  path: string;
  url: string;
}

function formOf(c: Connection | null): Form {
  const kinds: readonly string[] = ['postgres', 'mysql', 'sqlite'];
  const mode = (c && kinds.includes(c.kind) ? c.kind : 'postgres') as Mode;
  return {
    mode,
    name: c?.name ?? '',
    host: c?.host ?? '',
    port: c?.port ? String(c.port) : '',
    database: c?.database ?? '',
    user: c?.user ?? '',
    password: '',
    tls: (c?.tls as TLSMode | undefined) ?? 'prefer',
    path: c?.path ?? '',
    url: '',
  };
}

/** inputOf is what the backend is sent for the form; an empty password keeps the stored one. */
export function inputOf(f: Form, previous?: string): ConnectionInput {
  const input: ConnectionInput = { name: f.name.trim() };
  if (previous) input.previous = previous;
  if (f.password !== '' && f.mode !== 'sqlite') input.password = f.password;
  if (f.mode === 'url') {
    input.url = f.url.trim();
    return input;
  }
  input.kind = f.mode;
  if (f.mode === 'sqlite') {
    input.path = f.path.trim();
    return input;
  }
  input.host = f.host.trim();
  const port = Number(f.port.trim());
  if (f.port.trim() !== '' && Number.isInteger(port)) input.port = port;
  input.database = f.database.trim();
  input.user = f.user.trim();
  input.tls = f.tls;
  return input;
}

/** suggestName makes a connection name from what the form says the database is. */
export function suggestName(f: Form): string {
  let base = '';
  if (f.mode === 'sqlite') base = basename(f.path.trim()).replace(/\.[^.]+$/, '');
  else if (f.mode === 'url') {
    const m = /^[a-z0-9+]+:\/\/(?:[^/]*\/)?([^?#]*)/i.exec(f.url.trim());
    base = basename(m?.[1] ?? '').replace(/\.[^.]+$/, '');
  } else base = f.database.trim();
  return base.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
}

/** The engine the form describes, for the read-only advice. */
function engineOf(f: Form): 'postgres' | 'mysql' | 'sqlite' | null {
  if (f.mode !== 'url') return f.mode;
  const scheme = /^([a-z0-9]+):/i.exec(f.url.trim())?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  if (scheme === 'sqlite' || scheme === 'sqlite3' || scheme === 'file') return 'sqlite';
  return null;
}

function databaseOf(f: Form): string {
  if (f.mode === 'url') return /^[a-z0-9+]+:\/\/[^/]*\/([^?#]*)/i.exec(f.url.trim())?.[1] ?? '';
  return f.database.trim();
}

/**
 * readOnlySQL is the SQL that creates a read-only role for Loupe on the
 * engine: the backend's (remote.ReadOnlyRoleSQL, copied into
 * readOnlyRole.json by its test) with the database typed in place of mydb.
 */
export function readOnlySQL(engine: 'postgres' | 'mysql', database: string): string {
  const db = /^[A-Za-z_][A-Za-z0-9_$]*$/.test(database) ? database : 'mydb';
  return readOnlyRole[engine].replaceAll(' mydb', ` ${db}`);
}

type TestState = { running: true } | { ok: ConnectionCheck } | { error: Problem } | null;

/**
 * Adds a connection, or edits the one given: the fields of its kind (or a
 * URL), a Test button that says precisely what failed, and the advice to
 * connect with a read-only role.
 */
export function ConnectionDialog({
  editing,
  onClose,
  onSaved,
}: {
  editing: Connection | null;
  onClose: () => void;
  onSaved: (c: Connection) => void;
}) {
  const [form, setForm] = useState<Form>(() => formOf(editing));
  const [named, setNamed] = useState(editing !== null);
  const [test, setTest] = useState<TestState>(null);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<Problem | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [form.mode]);

  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((f) => {
      const next = { ...f, [key]: value };
      return named || key === 'name' ? next : { ...next, name: suggestName(next) };
    });
    if (key === 'name') setNamed(true);
    setTest(null);
    setSaveError(null);
  };
  const previous = editing?.name;
  const engine = engineOf(form);
  const network = form.mode === 'postgres' || form.mode === 'mysql';

  const runTest = async () => {
    setTest({ running: true });
    try {
      setTest({ ok: await api.testConnectionInput(inputOf(form, previous)) });
    } catch (err) {
      setTest({ error: problemOf(err) });
    }
  };
  const save = async () => {
    setSaving(true);
    setSaveError(null);
    try {
      onSaved(await api.saveConnection(inputOf(form, previous)));
    } catch (err) {
      setSaveError(problemOf(err));
    } finally {
      setSaving(false);
    }
  };
  const browse = async () => {
    try {
      const [path] = await api.chooseFiles();
      if (path) set('path', path);
    } catch (err) {
      setSaveError(problemOf(err));
    }
  };

  const passwordNote = editing?.hasPassword ? 'A password is stored; leave empty to keep it' : '';
  return (
    <ModalForm
      labelledBy="conn-title"
      className="conn-dialog"
      testId="connection-dialog"
      onBackdrop={onClose}
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
      onSubmit={() => void save()}
    >
      <h2 id="conn-title">{editing ? `Edit ${editing.name}` : 'Connect a database'}</h2>
      <p className="modal__lead">Loupe queries the database where it lives, read-only, and never copies it unless you import a result.</p>
      <div className="segmented" role="radiogroup" aria-label="Kind of database">
        {MODES.map(({ mode, label }) => (
          <label key={mode} className={form.mode === mode ? 'segmented__item segmented__item--on' : 'segmented__item'}>
            <input type="radio" name="conn-kind" checked={form.mode === mode} onChange={() => set('mode', mode)} />
            {label}
          </label>
        ))}
      </div>

      {form.mode === 'url' && (
        <label className="field">
          <span className="field__label">Connection URL</span>
          <input
            ref={first}
            aria-label="Connection URL"
            value={form.url}
            spellCheck={false}
            placeholder="postgres://user@host:5432/database?sslmode=require"
            onChange={(e) => set('url', e.target.value)}
          />
          <span className="field__note">postgres://…, mysql://… or sqlite:///path/to/file.db. A password in the URL goes to the keychain, not the settings.</span>
        </label>
      )}
      {form.mode === 'sqlite' && (
        <div className="field">
          <label className="field__label" htmlFor="conn-path">
            Database file
          </label>
          <div className="field__row">
            <input
              id="conn-path"
              ref={first}
              value={form.path}
              spellCheck={false}
              placeholder="/home/me/data/shop.sqlite"
              onChange={(e) => set('path', e.target.value)}
            />
            {api.isDesktop() && (
              <button type="button" className="button" onClick={() => void browse()}>
                Browse…
              </button>
            )}
          </div>
          <span className="field__note">Opened read-only: Loupe never writes to the file.</span>
        </div>
      )}
      {network && (
        <>
          <div className="conn-dialog__grid">
            <label className="field conn-dialog__host">
              <span className="field__label">Host</span>
              <input ref={first} value={form.host} spellCheck={false} placeholder="db.example.com" onChange={(e) => set('host', e.target.value)} />
            </label>
            <label className="field conn-dialog__port">
              <span className="field__label">Port</span>
              <input
                value={form.port}
                inputMode="numeric"
                placeholder={form.mode === 'postgres' ? '5432' : '3306'}
                onChange={(e) => set('port', e.target.value.replace(/[^0-9]/g, ''))}
              />
            </label>
          </div>
          <label className="field">
            <span className="field__label">Database</span>
            <input value={form.database} spellCheck={false} placeholder="analytics" onChange={(e) => set('database', e.target.value)} />
          </label>
          <div className="conn-dialog__grid">
            <label className="field">
              <span className="field__label">User</span>
              <input value={form.user} spellCheck={false} autoComplete="off" placeholder="loupe_ro" onChange={(e) => set('user', e.target.value)} />
            </label>
            <PasswordField value={form.password} stored={!!passwordNote} onChange={(v) => set('password', v)} />
          </div>
          <label className="field">
            <span className="field__label">Encryption (TLS)</span>
            <select className="conn-dialog__select" value={form.tls} onChange={(e) => set('tls', e.target.value as TLSMode)}>
              {TLS_MODES.map((t) => (
                <option key={t.mode} value={t.mode}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      {form.mode === 'url' && (
        <PasswordField value={form.password} stored={!!passwordNote} empty="if the URL has none" onChange={(v) => set('password', v)} />
      )}
      <label className="field">
        <span className="field__label">Name</span>
        <input aria-label="Name" value={form.name} spellCheck={false} placeholder="shop" onChange={(e) => set('name', e.target.value)} />
        <span className="field__note">How the sidebar and the command line (loupe ask --connection NAME) call it.</span>
      </label>
      {passwordNote && network && <span className="field__note">{passwordNote}.</span>}

      <ReadOnlyAdvice engine={engine} database={databaseOf(form)} />

      <div className="conn-dialog__test" aria-live="polite">
        {test !== null && 'running' in test && (
          <span className="conn-dialog__testing">
            <span className="spinner spinner--small" /> Connecting…
          </span>
        )}
        {test !== null && 'ok' in test && (
          <div className="check check--ok" data-testid="connection-test-ok">
            <Icon name="check" /> {checkWords(test.ok)}
          </div>
        )}
        {test !== null && 'ok' in test && test.ok.role && <RoleWarningNote warning={test.ok.role} />}
        {test !== null && 'error' in test && <ErrorNote title="The connection failed" problem={test.error} />}
        {saveError && <ErrorNote title="Not saved" problem={saveError} />}
      </div>
      <div className="modal__actions">
        <button type="button" className="button conn-dialog__test-button" disabled={test !== null && 'running' in test} onClick={() => void runTest()}>
          <Icon name="pulse" /> Test connection
        </button>
        <span className="view-head__spacer" />
        <button type="button" className="button button--ghost" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={saving || form.name.trim() === ''}>
          {editing ? 'Save' : 'Add connection'}
        </button>
      </div>
    </ModalForm>
  );
}

/** The advice to connect with a read-only role, with the SQL that makes one. */
/** PasswordField is the password input; a stored password shows as dots until replaced. */
function PasswordField({ value, stored, empty = '', onChange }: { value: string; stored: boolean; empty?: string; onChange: (v: string) => void }) {
  return (
    <label className="field">
      <span className="field__label">Password</span>
      <input
        type="password"
        value={value}
        autoComplete="new-password"
        placeholder={stored ? '•••••••• (stored)' : empty}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

function ReadOnlyAdvice({ engine, database }: { engine: 'postgres' | 'mysql' | 'sqlite' | null; database: string }) {
  const [copied, setCopied] = useState(false);
  if (engine === null) return null;
  if (engine === 'sqlite') {
    return (
      <div className="conn-advice">
        <Icon name="eye" /> Loupe opens SQLite files read-only and refuses any statement that writes.
      </div>
    );
  }
  const sql = readOnlySQL(engine, database);
  return (
    <details className="conn-advice" data-testid="read-only-advice">
      <summary>
        <Icon name="eye" /> Connect with a read-only role
      </summary>
      <p>
        Loupe runs every query in a read-only transaction and refuses writes, but a role that can only read makes sure of it. As an
        administrator, run:
      </p>
      <pre className="conn-advice__sql">{sql}</pre>
      <button
        type="button"
        className="button button--small"
        onClick={() => {
          void navigator.clipboard?.writeText(sql).then(() => setCopied(true));
        }}
      >
        <Icon name={copied ? 'check' : 'copy'} size={14} /> {copied ? 'Copied' : 'Copy SQL'}
      </button>
    </details>
  );
}
