import { useEffect, useState } from 'react';
import { formatCount } from '../../format';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { ModalForm } from './ModalForm';
import './folder.css';

/**
 * FolderDialog asks how to open a folder that was dropped, chosen or typed:
 * one dataset per file, or one dataset of all its CSV or TSV files (rows
 * together, columns matched by name, a source_file column naming each row's
 * file). Folders opened together are asked one after the other.
 */
export function FolderDialog() {
  const folder = useStore((s) => s.folderChoices[0]);
  const a = useActions();
  const [asOne, setAsOne] = useState(false);
  const [name, setName] = useState('');
  useEffect(() => {
    setAsOne(false);
    setName(folder?.name ?? '');
  }, [folder?.path, folder?.name]);
  if (!folder) return null;
  const close = () => void a.openFolder(null);
  if (folder.error) {
    return (
      <ModalForm labelledBy="folder-title" testId="folder-dialog" onBackdrop={close} onSubmit={close}>
        <h2 id="folder-title">Cannot open {folder.name}</h2>
        <p className="modal__lead">{folder.error.message}</p>
        {folder.error.hint && <p className="folder__hint">{folder.error.hint}</p>}
        <div className="modal__actions">
          <button type="submit" className="button button--primary">
            OK
          </button>
        </div>
      </ModalForm>
    );
  }
  const files = `${formatCount(folder.files)} data ${folder.files === 1 ? 'file' : 'files'}`;
  const submit = () => void a.openFolder({ asOne, name: name.trim() || folder.name });
  return (
    <ModalForm
      labelledBy="folder-title"
      testId="folder-dialog"
      onBackdrop={close}
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') close();
      }}
    >
      <h2 id="folder-title">Open the folder {folder.name}</h2>
      <p className="modal__lead" title={folder.path}>
        It holds {files}
        {folder.skipped > 0 && ` (and ${formatCount(folder.skipped)} other ${folder.skipped === 1 ? 'entry' : 'entries'}, left out)`}; subfolders are
        not read.
      </p>
      <div className="folder__choices" role="radiogroup" aria-label="Open the folder as">
        <label className={asOne ? 'folder__choice' : 'folder__choice folder__choice--on'}>
          <input type="radio" name="folder-as" checked={!asOne} onChange={() => setAsOne(false)} />
          <span>
            <strong>One dataset per file</strong>
            <span className="folder__hint">{files}, each a table of its own.</span>
          </span>
        </label>
        <label className={asOne ? 'folder__choice folder__choice--on' : 'folder__choice'}>
          <input type="radio" name="folder-as" checked={asOne} onChange={() => setAsOne(true)} />
          <span>
            <strong>One dataset of all files</strong>
            <span className="folder__hint">
              For CSV or TSV files that share columns: their rows together, columns matched by name, and a source_file
              column naming each row&apos;s file.
            </span>
          </span>
        </label>
      </div>
      {asOne && (
        <label className="field">
          <span className="field__label">Dataset name</span>
          <input aria-label="Dataset name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </label>
      )}
      <div className="modal__actions">
        <button type="button" className="button button--ghost" onClick={close}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={asOne && name.trim() === ''}>
          Open
        </button>
      </div>
    </ModalForm>
  );
}
