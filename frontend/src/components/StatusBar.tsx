import { useState, type ReactNode } from 'react';
import type { Check } from '../api';
import { formatCount } from '../format';
import { useActions } from '../state/actions';
import { useStore } from '../state/store';
import { SandboxBuild } from './settings/SandboxBuild';
import './StatusBar.css';

/** The bottom bar: is the model reachable, is Docker there, and how to fix each. */
export function StatusBar() {
  const status = useStore((s) => s.status);
  const settings = useStore((s) => s.settings);
  const datasets = useStore((s) => s.datasets);
  const a = useActions();
  const rows = (datasets ?? []).reduce((n, d) => n + d.rows, 0);
  const build = useStore((s) => s.sandboxBuild);
  const dockerNote = build?.running
    ? `building the sandbox image${build.progress.percent > 0 ? ` ${Math.round(build.progress.percent)}%` : '…'}`
    : status?.docker && !status.docker.ok && status.docker.action === 'build_sandbox'
      ? 'sandbox image missing'
      : undefined;
  return (
    <footer className="statusbar" data-testid="statusbar">
      <StatusItem label="Model" check={status?.model} detail={settings?.model} />
      {/* Docker serves only Python analysis, which is optional: without it the tone is neutral. */}
      <StatusItem
        label="Docker"
        check={status?.docker}
        note={dockerNote}
        optional="Python off: set up Docker to enable"
        fix={<SandboxBuild check={status?.docker} />}
      />
      <span className="statusbar__spacer" />
      {datasets && datasets.length > 0 && (
        <span className="statusbar__item">
          {datasets.length.toLocaleString('en')} {datasets.length === 1 ? 'table' : 'tables'} · {formatCount(rows, true)} rows
        </span>
      )}
      <button type="button" className="statusbar__item statusbar__button" onClick={() => void a.refreshStatus()}>
        Check again
      </button>
    </footer>
  );
}

function StatusItem({
  label,
  check,
  detail,
  note,
  optional,
  fix,
}: {
  label: string;
  check: Check | undefined;
  detail?: string | undefined;
  /** Replaces "needs attention" after the label. */
  note?: string | undefined;
  /** What the popover offers to fix it. */
  fix?: ReactNode;
  /** Set for what the app works without: said so when it is not ready, in a neutral tone. */
  optional?: string | undefined;
}) {
  const [open, setOpen] = useState(false);
  const state = check === undefined ? 'unknown' : check.ok ? 'ok' : optional ? 'off' : 'bad';
  return (
    <span className="statusbar__wrap">
      <button
        type="button"
        className={`statusbar__item statusbar__button status--${state}`}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid={`status-${label.toLowerCase()}`}
      >
        <span className="dot" />
        {state === 'off' && !note ? (
          optional
        ) : (
          <>
            {label}
            {detail ? ` · ${detail}` : ''}
            {note ? ` · ${note}` : check && !check.ok && ' · needs attention'}
          </>
        )}
      </button>
      {open && check && (
        <div className="popover" role="dialog" aria-label={`${label} status`}>
          <div className="popover__title">
            {check.ok
              ? `${label} is ready`
              : check.action === 'build_sandbox'
                ? 'The Python sandbox is not built yet'
                : optional
                  ? 'Python analysis is off: everything else works'
                  : `${label} is not available`}
          </div>
          <div>{check.message}</div>
          {check.hint && <div className="popover__hint">{check.hint}</div>}
          {fix && <div style={{ marginTop: 10 }}>{fix}</div>}
        </div>
      )}
    </span>
  );
}
