import { useEffect, useMemo, useState } from 'react';
import * as api from '../../api';
import type { QueryResult, ToolDisplay } from '../../api';
import { basename, formatBytes, rows } from '../../format';
import { useActions } from '../../state/actions';
import { problemOf, type Problem } from '../../state/problem';
import { useDataset } from '../../hooks/useDataset';
import { useStore } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';
import { NotesDialog } from './NotesDialog';
import { PrivateColumnsDialog } from './PrivateColumnsDialog';
import { ReloadDialog } from './ReloadDialog';
import { Icon } from '../common/Icon';
import { DataGrid, type GridSource } from '../grid/DataGrid';
import { quoteIdent } from '../sidebar/Sidebar';
import { ProfileView, type ProfileData } from './ProfileView';
import './dataset.css';

/** One dataset: its first rows (paged like any result) or its profile. */
export function DatasetView({ name, mode }: { name: string; mode: 'preview' | 'profile' }) {
  const a = useActions();
  const d = useStore((s) => s.datasets?.find((x) => x.name === name));
  const whole = useDataset(d);
  const [preview, setPreview] = useState<QueryResult | null>(null);
  const [profile, setProfile] = useState<ToolDisplay | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [noting, setNoting] = useState(false);
  const [hiding, setHiding] = useState(false);
  const [reloading, setReloading] = useState(false);
  const text = d !== undefined && (d.kind === 'csv' || d.kind === 'tsv');
  const loadedAt = d?.loadedAt;

  useEffect(() => {
    let live = true;
    setError(null);
    if (mode === 'preview') setPreview(null);
    else setProfile(null);
    const job =
      mode === 'preview'
        ? api.previewDataset(name).then((r) => live && setPreview(r))
        : api.profileDataset(name).then((p) => live && setProfile(p));
    job.catch((err: unknown) => live && setError(problemOf(err)));
    return () => {
      live = false;
    };
  }, [name, mode, loadedAt]);

  const source = useMemo<GridSource | null>(
    () =>
      preview
        ? { ref: preview.ref, columns: preview.columns, kept: preview.kept, total: preview.rows, preview: preview.page.rows }
        : null,
    [preview],
  );

  return (
    <div className="dataset-view">
      <header className="view-head">
        <h1 className="view-head__title">{name}</h1>
        {d && (
          <span className="view-head__sub" title={d.source}>
            {rows(d.rows)} · {d.columnCount} columns · {basename(d.source)}
            {d.part ? ` · ${d.part}` : ''}
            {d.sizeBytes > 0 ? ` · ${formatBytes(d.sizeBytes)}` : ''}
          </span>
        )}
        <span className="view-head__spacer" />
        <div className="segmented segmented--small" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'preview'}
            className={mode === 'preview' ? 'segmented__item segmented__item--on' : 'segmented__item'}
            onClick={() => a.show({ kind: 'dataset', name, mode: 'preview' })}
          >
            Preview
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'profile'}
            className={mode === 'profile' ? 'segmented__item segmented__item--on' : 'segmented__item'}
            onClick={() => a.show({ kind: 'dataset', name, mode: 'profile' })}
          >
            Profile
          </button>
        </div>
        {text && (
          <button type="button" className="button" onClick={() => setReloading(true)} title="Read the file again with a delimiter, decimal separator, header, encoding or lines to skip">
            Import options…
          </button>
        )}
        <button type="button" className="button" disabled={!whole} onClick={() => setNoting(true)}>
          Notes…
        </button>
        <button type="button" className="button" disabled={!d} onClick={() => setHiding(true)} title="Columns whose values a hosted model sees only as placeholders">
          Private…
        </button>
        <button type="button" className="button" onClick={() => a.openConsole(`SELECT *\nFROM ${quoteIdent(name)}\nLIMIT 100`)}>
          <Icon name="terminal" size={14} /> Query
        </button>
      </header>
      {whole && reloading && <ReloadDialog dataset={whole} onReload={(o) => a.reloadDataset(name, o)} onClose={() => setReloading(false)} />}
      {whole && noting && <NotesDialog dataset={whole} onClose={() => setNoting(false)} />}
      {d && hiding && (
        <PrivateColumnsDialog
          table={name}
          load={() => api.privateColumns(name)}
          onSet={(column, isPrivate) => api.setPrivateColumn(name, column, isPrivate)}
          onClose={() => setHiding(false)}
        />
      )}
      {d && (d.note || d.comment) && (
        <p className={d.note ? 'dataset-view__note' : 'dataset-view__note dataset-view__note--comment'} data-testid="dataset-note">
          {d.note || d.comment}
        </p>
      )}
      {d && d.warnings.length > 0 && (
        <section className="dataset-view__warnings" aria-label="Load warnings" data-testid="dataset-warnings">
          <Icon name="warning" size={14} className="dataset-view__warn-icon" />
          <ul className="dataset-warnings">
            {d.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
          {text && (
            <button type="button" className="button button--small" onClick={() => setReloading(true)}>
              Reload with options…
            </button>
          )}
        </section>
      )}
      <div className="dataset-view__body">
        {error && <ErrorNote problem={error} title={mode === 'preview' ? 'Could not preview' : 'Could not profile'} />}
        {mode === 'preview' && source && <DataGrid source={source} fill exportAll={() => api.exportDataset(name)} />}
        {mode === 'profile' && profile?.data != null && (
          <div className="dataset-view__profile">
            <ProfileView data={profile.data as ProfileData} />
          </div>
        )}
        {!error && ((mode === 'preview' && !source) || (mode === 'profile' && !profile)) && (
          <div className="dataset-view__loading">
            <span className="spinner" /> {mode === 'preview' ? 'Reading the first rows…' : 'Profiling every column…'}
          </div>
        )}
      </div>
    </div>
  );
}
