import type { Check } from '../../api';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import './settings.css';

/**
 * Building the Python sandbox's image from the app: the button the Docker
 * check offers when the image is missing (or out of date), then the build's
 * progress bar with a Cancel button, then how it ended. Shown in the status
 * bar's Docker popover and in Settings.
 */
export function SandboxBuild({ check }: { check: Check | undefined }) {
  const a = useActions();
  const build = useStore((s) => s.sandboxBuild);

  if (build?.running) {
    const p = build.progress;
    const known = p.percent > 0;
    return (
      <div className="pull" data-testid="sandbox-build">
        <div className="pull__line">{p.message || 'Building the sandbox image…'}</div>
        <div
          className={known ? 'progress' : 'progress progress--indeterminate'}
          role="progressbar"
          aria-label="Building the sandbox image"
          aria-valuemin={0}
          aria-valuemax={100}
          {...(known ? { 'aria-valuenow': Math.round(p.percent) } : {})}
        >
          <span style={known ? { width: `${p.percent}%` } : undefined} />
        </div>
        <div style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
          <span style={{ flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={p.detail}>
            {known ? `${Math.round(p.percent)}%` : ''}
            {p.detail ? `${known ? ' · ' : ''}${p.detail}` : ''}
          </span>
          <button type="button" className="button button--ghost" onClick={() => void a.cancelSandboxBuild()}>
            Cancel
          </button>
        </div>
      </div>
    );
  }

  const offer = check?.action === 'build_sandbox';
  return (
    <>
      {build?.error && (
        <ErrorNote title="The sandbox image was not built" problem={build.error} onDismiss={() => a.dismissSandboxBuild()} />
      )}
      {build && !build.error && build.progress.phase === 'canceled' && (
        <div className="field__note" data-testid="sandbox-build-canceled">The build was canceled; nothing was changed.</div>
      )}
      {offer && (
        <div className="pull" data-testid="sandbox-build-offer">
          <div style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 8 }}>
            <button type="button" className="button button--primary" onClick={() => void a.buildSandbox(false)}>
              <Icon name="download" size={14} /> {check?.ok ? 'Rebuild sandbox image' : 'Build sandbox image'}
            </button>
            <button
              type="button"
              className="button button--ghost"
              title="Without internet: from this machine's apt mirror with debootstrap (Linux, as root)"
              onClick={() => void a.buildSandbox(true)}
            >
              Build offline
            </button>
          </div>
          <span>Python 3.12 with pandas, numpy, matplotlib, seaborn, scipy, openpyxl and pyarrow — about 2 minutes with internet.</span>
        </div>
      )}
    </>
  );
}
