import { useEffect, useRef, useState } from 'react';
import * as api from '../../api';
import type { Dataset } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { ModalForm } from '../common/ModalForm';
import './notes.css';

/** The longest note the backend takes, in characters. */
export const MAX_NOTE = 2000;

/** What notes can be written on: a dataset, or a connected database's table. */
export type Notable = Pick<Dataset, 'name' | 'note' | 'comment'> & {
  columns: { name: string; type: string; note?: string; comment?: string }[];
};

/**
 * Notes on a dataset: what the table is and how to read its columns, in
 * the user's words. The agent finds tables by them and reads them in its
 * prompt. A source's own comment (a DuckDB file's COMMENT ON) shows as the
 * placeholder until a note replaces it. onSave stores the notes elsewhere
 * than on a dataset (a connection's table); by default setDatasetNote.
 */
export function NotesDialog({
  dataset,
  onClose,
  onSave = (note, columns) => api.setDatasetNote(dataset.name, note, columns),
}: {
  dataset: Notable;
  onClose: () => void;
  onSave?: (note: string, columns: Record<string, string>) => Promise<void>;
}) {
  const [note, setNote] = useState(dataset.note ?? '');
  const [cols, setCols] = useState<Record<string, string>>(() =>
    Object.fromEntries(dataset.columns.map((c) => [c.name, c.note ?? ''])),
  );
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);

  const tooLong = [note, ...Object.values(cols)].some((t) => t.trim().length > MAX_NOTE);
  const save = async () => {
    // Only the columns whose note changed: the others keep theirs.
    const changed: Record<string, string> = {};
    for (const c of dataset.columns) {
      if ((cols[c.name] ?? '') !== (c.note ?? '')) changed[c.name] = cols[c.name] ?? '';
    }
    setSaving(true);
    setError(null);
    try {
      await onSave(note, changed);
      onClose();
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <ModalForm
      labelledBy="notes-title"
      className="notes-dialog"
      testId="notes-dialog"
      onBackdrop={() => !saving && onClose()}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !saving) onClose();
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !saving && !tooLong) void save();
      }}
      onSubmit={() => {
        if (!tooLong) void save();
      }}
    >
      <h2 id="notes-title">Notes on {dataset.name}</h2>
      <p className="modal__lead">
        Say what the table holds and how to read its columns. The agent searches these notes to find the right table and reads them before
        it writes SQL.
      </p>
      <label className="field">
        <span className="field__label">
          Table note
          <span className={note.trim().length > MAX_NOTE ? 'field__aside notes-dialog__count--over' : 'field__aside'}>
            {note.trim().length} / {MAX_NOTE}
          </span>
        </span>
        <textarea
          ref={box}
          aria-label="Table note"
          rows={3}
          value={note}
          disabled={saving}
          placeholder={dataset.comment || 'e.g. One row per web order since 2023; amounts are in euros, without VAT.'}
          onChange={(e) => setNote(e.target.value)}
        />
      </label>
      <div className="notes-dialog__cols" role="group" aria-label="Column notes">
        <div className="field__label">Column notes</div>
        {dataset.columns.map((c) => (
          <label key={c.name} className="notes-dialog__col">
            <span className="notes-dialog__name" title={c.name}>
              {c.name}
              <span className="notes-dialog__type">{c.type}</span>
            </span>
            <input
              aria-label={`Note on ${c.name}`}
              value={cols[c.name] ?? ''}
              disabled={saving}
              placeholder={c.comment || ''}
              className={(cols[c.name] ?? '').trim().length > MAX_NOTE ? 'notes-dialog__input--over' : undefined}
              onChange={(e) => setCols((m) => ({ ...m, [c.name]: e.target.value }))}
            />
          </label>
        ))}
      </div>
      {tooLong && <div className="field__note field__note--warn">A note may hold at most {MAX_NOTE.toLocaleString('en')} characters.</div>}
      {error && <ErrorNote title="The notes were not saved" problem={error} onDismiss={() => setError(null)} />}
      <div className="modal__actions">
        <button type="button" className="button button--ghost" disabled={saving} onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={saving || tooLong}>
          {saving ? 'Saving…' : 'Save notes'}
        </button>
      </div>
    </ModalForm>
  );
}
