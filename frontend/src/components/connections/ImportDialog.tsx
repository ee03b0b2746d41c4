import { useEffect, useRef, useState } from 'react';
import * as api from '../../api';
import type { Dataset, ImportProgress } from '../../api';
import { formatCount } from '../../format';
import { useBackendEvent } from '../../state/events';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { ModalForm } from '../common/ModalForm';
import './connections.css';

/** The default row limit the dialog offers (the backend's own default is larger). */
export const DEFAULT_ROW_LIMIT = 100_000;

/** tableNameFor suggests a workspace table name for a query's result. */
export function tableNameFor(sql: string, connection: string): string {
  const from = /\bfrom\s+(?:["`[]?[\w$]+["`\]]?\s*\.\s*)?["`[]?([A-Za-z_][\w$]*)/i.exec(sql)?.[1];
  const base = (from ?? connection).toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^[^a-z_]+/, '');
  return `${base || 'imported'}_import`.slice(0, 63);
}

const PHASES: Record<string, string> = {
  connecting: 'Connecting',
  reading: 'Reading rows',
  profiling: 'Profiling columns',
  done: 'Done',
};

/**
 * Imports a query's result from a connection into the workspace as a
 * table, so it can be joined with local files: the SQL, the table's name,
 * a row limit, and a progress bar while it runs (with Cancel).
 */
export function ImportDialog({
  connection,
  initialSQL = '',
  onClose,
  onImported,
}: {
  connection: string;
  initialSQL?: string;
  onClose: () => void;
  onImported: (d: Dataset) => void;
}) {
  const [sql, setSQL] = useState(initialSQL);
  const [table, setTable] = useState(() => (initialSQL ? tableNameFor(initialSQL, connection) : ''));
  const [named, setNamed] = useState(false);
  const [limit, setLimit] = useState(String(DEFAULT_ROW_LIMIT));
  const [replace, setReplace] = useState(false);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const target = useRef(table);
  target.current = table;
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  useBackendEvent('import:progress', (p) => {
    if (p.connection === connection && p.table === target.current) setProgress(p);
  });

  const rowLimit = Number(limit.replace(/[^0-9]/g, '') || '0');
  const start = async () => {
    setRunning(true);
    setError(null);
    setProgress({ connection, table, phase: 'connecting', rows: 0, maxRows: rowLimit });
    try {
      onImported(await api.importQuery(connection, sql, table, rowLimit, replace));
    } catch (err) {
      const p = problemOf(err);
      if (p.code !== 'canceled') setError(p);
      setProgress(null);
    } finally {
      setRunning(false);
    }
  };
  const stop = () => void api.cancelImport(table).catch(() => undefined);
  const reading = progress?.phase === 'reading' || progress?.phase === 'connecting';
  const pct = progress && progress.maxRows > 0 ? Math.min(100, (progress.rows / progress.maxRows) * 100) : 0;
  return (
    <ModalForm
      labelledBy="import-title"
      className="conn-dialog"
      testId="import-dialog"
      onBackdrop={() => !running && onClose()}
      onKeyDown={(e) => {
        if (e.key === 'Escape') (running ? stop : onClose)();
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !running) void start();
      }}
      onSubmit={() => void start()}
    >
      <h2 id="import-title">Import a query result from {connection}</h2>
      <p className="modal__lead">
        The query runs on the database; its rows become a table in your workspace, to join with your files. Large results are cut at the row
        limit.
      </p>
      <label className="field">
        <span className="field__label">Query</span>
        <textarea
          ref={box}
          aria-label="Query"
          rows={6}
          value={sql}
          spellCheck={false}
          disabled={running}
          placeholder="SELECT * FROM orders WHERE ordered_at >= '2024-01-01'"
          onChange={(e) => {
            setSQL(e.target.value);
            if (!named) setTable(tableNameFor(e.target.value, connection));
          }}
        />
      </label>
      <div className="conn-dialog__grid">
        <label className="field">
          <span className="field__label">Table name</span>
          <input
            value={table}
            spellCheck={false}
            disabled={running}
            onChange={(e) => {
              setNamed(true);
              setTable(e.target.value);
            }}
          />
        </label>
        <label className="field conn-dialog__limit">
          <span className="field__label">Row limit</span>
          <input value={limit} inputMode="numeric" disabled={running} onChange={(e) => setLimit(e.target.value.replace(/[^0-9,]/g, ''))} />
        </label>
      </div>
      <label className="conn-dialog__checkbox">
        <input type="checkbox" checked={replace} disabled={running} onChange={(e) => setReplace(e.target.checked)} /> Replace a dataset of
        the same name
      </label>
      {progress && (
        <div className="load" data-testid="import-progress">
          <div className="load__line">
            <span className="load__name">{PHASES[progress.phase] ?? progress.phase}</span>
            <span className="load__figures">
              {formatCount(progress.rows)} rows{progress.maxRows > 0 && ` of at most ${formatCount(progress.maxRows)}`}
            </span>
          </div>
          <div
            className={reading && progress.rows === 0 ? 'progress progress--indeterminate' : 'progress'}
            role="progressbar"
            aria-label={`Importing ${table}`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={reading && progress.rows === 0 ? undefined : Math.round(progress.phase === 'reading' ? pct : 100)}
          >
            <span style={reading && progress.rows === 0 ? undefined : { width: `${progress.phase === 'reading' ? pct : 100}%` }} />
          </div>
        </div>
      )}
      {error && <ErrorNote title="The import failed" problem={error} onDismiss={() => setError(null)} />}
      <div className="modal__actions">
        <button type="button" className="button button--ghost" onClick={running ? stop : onClose}>
          {running ? 'Stop import' : 'Cancel'}
        </button>
        <button type="submit" className="button button--primary" disabled={running || sql.trim() === '' || table.trim() === ''}>
          {running ? 'Importing…' : 'Import'}
        </button>
      </div>
    </ModalForm>
  );
}
