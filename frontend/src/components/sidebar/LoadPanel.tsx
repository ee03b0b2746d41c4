import { basename, formatBytes, formatCount } from '../../format';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';

/** Files and folders being loaded, with progress bars and a cancel, and those that failed, with what to do. */
export function LoadPanel() {
  const a = useActions();
  const loads = useStore((s) => s.loads);
  const failures = useStore((s) => s.loadFailures);
  const cancellable = useStore((s) => s.cancellable);
  const list = Object.entries(loads);
  if (list.length === 0 && failures.length === 0) return null;
  return (
    <div className="loads" aria-label="Loading files" data-testid="loads">
      {list.map(([key, p]) => {
        // Percent is -1 while the loader cannot tell.
        const known = (p.percent ?? -1) >= 0 && p.phase !== 'starting';
        const pct = Math.max(0, Math.min(100, p.percent ?? 0));
        return (
          <div className="load" key={key}>
            <div className="load__line">
              <span className="load__name" title={p.file}>
                {p.table ? `${basename(p.file)} → ${p.table}` : basename(p.file)}
              </span>
              <span className="load__figures">
                {phaseWords(p.phase)}
                {p.rows > 0 && ` · ${formatCount(p.rows)} rows`}
                {p.totalBytes > 0 && ` · ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}`}
              </span>
              {cancellable[key] && (
                <button
                  type="button"
                  className="button button--small button--ghost load__cancel"
                  aria-label={`Cancel loading ${basename(key)}`}
                  onClick={() => void a.cancelLoad(key)}
                >
                  Cancel
                </button>
              )}
            </div>
            <div
              className={known ? 'progress' : 'progress progress--indeterminate'}
              role="progressbar"
              aria-label={`Loading ${basename(p.file)}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={known ? Math.round(pct) : undefined}
            >
              <span style={known ? { width: `${pct}%` } : undefined} />
            </div>
          </div>
        );
      })}
      {failures.map((f) => (
        <ErrorNote
          key={f.file}
          title={`Could not open ${basename(f.file)}`}
          problem={f.error}
          onDismiss={() => a.dismissLoadFailure(f.file)}
        />
      ))}
    </div>
  );
}

function phaseWords(phase: string): string {
  const words: Record<string, string> = {
    starting: 'Starting',
    sniffing: 'Detecting the format',
    reading: 'Reading',
    loading: 'Loading',
    profiling: 'Profiling columns',
    indexing: 'Indexing',
    done: 'Done',
  };
  return words[phase] ?? phase.charAt(0).toUpperCase() + phase.slice(1);
}
