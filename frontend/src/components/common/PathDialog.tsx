import { useEffect, useRef, useState } from 'react';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { ModalForm } from './ModalForm';
import type { TextOptions } from '../../api';
import { DETECTED, ImportOptionsFields, isDetected } from '../data/ImportOptions';

/**
 * Open files by path. The desktop app uses the native dialog; a plain
 * browser against `loupe serve` has none, so this asks for paths instead.
 */
export function PathDialog() {
  const open = useStore((s) => s.pathDialog);
  const a = useActions();
  const [text, setText] = useState('');
  const [options, setOptions] = useState<TextOptions>(DETECTED);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (open) ref.current?.focus();
  }, [open]);
  if (!open) return null;
  const close = () => a.closePathDialog();
  const submit = () => {
    const paths = text
      .split('\n')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    close();
    setText('');
    void a.openPaths(paths, isDetected(options) ? undefined : options);
    setOptions(DETECTED);
  };
  return (
    <ModalForm labelledBy="path-title" onBackdrop={close} onSubmit={submit}>
      <h2 id="path-title">Open files by path</h2>
      <p className="modal__lead">
        This browser has no file dialog. Paste the full paths of files or folders, one per line; a folder asks how to
        open it.
      </p>
      <textarea
        ref={ref}
        aria-label="File paths"
        rows={4}
        value={text}
        placeholder="/home/me/data/orders.csv"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') close();
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
        }}
      />
      <details className="path-dialog__options">
        <summary>Import options for CSV and TSV files</summary>
        <ImportOptionsFields value={options} onChange={setOptions} />
      </details>
      <div className="modal__actions">
        <button type="button" className="button button--ghost" onClick={close}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={text.trim() === ''}>
          Open
        </button>
      </div>
    </ModalForm>
  );
}
