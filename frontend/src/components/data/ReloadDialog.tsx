import { useState } from 'react';
import type { Dataset, TextOptions } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { ModalForm } from '../common/ModalForm';
import { DETECTED, ImportOptionsFields } from './ImportOptions';

/**
 * Reload a CSV or TSV dataset with import options: the ones it was loaded
 * with to start from, its warnings beside them to say why one would.
 */
export function ReloadDialog({
  dataset,
  onReload,
  onClose,
}: {
  dataset: Dataset;
  onReload: (o: TextOptions) => Promise<void>;
  onClose: () => void;
}) {
  const [o, setO] = useState<TextOptions>(dataset.text ?? DETECTED);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await onReload(o);
      onClose();
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <ModalForm
      labelledBy="reload-title"
      testId="reload-dialog"
      onBackdrop={() => !busy && onClose()}
      onKeyDown={(e) => e.key === 'Escape' && !busy && onClose()}
      onSubmit={() => void submit()}
    >
      <h2 id="reload-title">Reload {dataset.name}</h2>
      <p className="modal__lead">Read the file again, saying how it is written where detection guessed wrong. The options are kept for its refreshes.</p>
      {dataset.warnings.length > 0 && (
        <ul className="dataset-warnings dataset-warnings--dialog" aria-label="Warnings of the last load">
          {dataset.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <ImportOptionsFields value={o} onChange={setO} disabled={busy} />
      {error && <ErrorNote title="Not reloaded" problem={error} onDismiss={() => setError(null)} />}
      <div className="modal__actions">
        <button type="button" className="button button--ghost" disabled={busy} onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Reloading…' : 'Reload'}
        </button>
      </div>
    </ModalForm>
  );
}
