import { useEffect, useState } from 'react';
import type { PrivateColumn } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { ModalForm } from '../common/ModalForm';
import './notes.css';

/**
 * Private columns of a dataset or a connection's table: under the masked
 * privacy level a hosted model sees their values only as placeholders
 * (<email_3>), while answers show the real values. Loupe proposes columns by
 * their names and sample values; each toggle is the user's decision and is
 * saved at once.
 */
export function PrivateColumnsDialog({
  table,
  load,
  onSet,
  onClose,
}: {
  table: string;
  load: () => Promise<PrivateColumn[]>;
  onSet: (column: string, isPrivate: boolean) => Promise<PrivateColumn>;
  onClose: () => void;
}) {
  const [cols, setCols] = useState<PrivateColumn[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => {
    let live = true;
    load()
      .then((cs) => live && setCols(cs))
      .catch((err: unknown) => live && setError(problemOf(err)));
    return () => {
      live = false;
    };
    // load is a new closure on each render of the parent: read once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [table]);

  const toggle = async (c: PrivateColumn) => {
    setBusy(c.column);
    setError(null);
    try {
      const now = await onSet(c.column, !c.private);
      setCols((cs) => cs && cs.map((x) => (x.column === c.column ? now : x)));
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setBusy(null);
    }
  };
  const proposed = cols?.filter((c) => c.proposed && !c.decided).length ?? 0;
  return (
    <ModalForm
      labelledBy="private-title"
      className="notes-dialog"
      testId="private-dialog"
      onBackdrop={() => busy === null && onClose()}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && busy === null) onClose();
      }}
      onSubmit={onClose}
    >
      <h2 id="private-title">Private columns of {table}</h2>
      <p className="modal__lead">
        With a hosted model at the masked privacy level, values of private columns are sent only as placeholders such as &lt;email_3&gt;; your
        answers still show the real values.
        {proposed > 0 && ` Loupe proposes ${proposed === 1 ? 'one column' : `${proposed} columns`} from names and sample values: confirm or change them.`}
      </p>
      {cols === null && error === null && (
        <div className="conn__status">
          <span className="spinner spinner--small" /> Reading the columns…
        </div>
      )}
      {cols && (
        <div className="notes-dialog__cols" role="group" aria-label="Private columns">
          {cols.map((c) => (
            <label key={c.column} className="notes-dialog__col" data-testid="private-column">
              <span className="notes-dialog__name" title={c.column}>
                {c.column}
                {c.private && c.kind && <span className="notes-dialog__type">{c.kind}</span>}
                {c.proposed && !c.decided && <span className="notes-dialog__type">proposed</span>}
              </span>
              <input
                type="checkbox"
                aria-label={`Private: ${c.column}`}
                checked={c.private}
                disabled={busy !== null}
                onChange={() => void toggle(c)}
              />
            </label>
          ))}
        </div>
      )}
      {error && <ErrorNote title="The private columns were not changed" problem={error} onDismiss={() => setError(null)} />}
      <div className="modal__actions">
        <button type="submit" className="button button--primary" disabled={busy !== null}>
          Done
        </button>
      </div>
    </ModalForm>
  );
}
