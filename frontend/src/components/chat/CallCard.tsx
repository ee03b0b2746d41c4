import { useMemo } from 'react';
import { callDetail, callSQL, describeCall, evidenceId, formatDuration, type CallView } from '../../trace/trace';
import { useActions } from '../../state/actions';
import { Icon } from '../common/Icon';
import { SqlBlock } from '../common/SqlBlock';
import type { GridSource } from '../grid/DataGrid';
import { DisplayBody, callIcon, displays } from './displays';
import './chat.css';

export { opensByDefault } from './displays';

/** The evidence ref a call produced ("q1", "c1"), if any. */
export function callRef(c: CallView): string | undefined {
  return c.result?.ref || c.chart?.ref || undefined;
}

/**
 * One tool call of the trace: a header line (what it did in plain words,
 * its one-line result, its timing) that opens to the query, the result
 * table, the chart or the profile.
 */
export function CallCard({
  call,
  runId,
  open,
  onToggle,
  flash,
}: {
  call: CallView;
  runId: string;
  open: boolean;
  onToggle: () => void;
  flash?: boolean;
}) {
  const { openConsole } = useActions();
  const r = call.result;
  const sql = callSQL(call);
  const ref = callRef(call);
  const detail = callDetail(call);
  const display = r?.display;
  const table = display?.table;
  const source = useMemo<GridSource | null>(
    () =>
      table
        ? { ref: table.ref, columns: table.columns, kept: table.kept, total: table.rows, preview: table.preview ?? [] }
        : null,
    [table],
  );
  const chart = call.chart?.chart ?? display?.chart;
  const state = r === undefined ? 'running' : r.failed ? 'failed' : r.skipped ? 'skipped' : 'done';
  return (
    <section
      className={`call call--${state}${open ? ' call--open' : ''}${flash ? ' call--flash' : ''}`}
      id={ref ? evidenceId(runId, ref) : undefined}
      data-testid="call"
    >
      <button type="button" className="call__head" aria-expanded={open} onClick={onToggle}>
        <Icon name="chevron" size={12} className="call__chevron" />
        <span className={`call__icon call__icon--${state}`}>
          {state === 'running' ? <span className="spinner" aria-label="running" /> : <Icon name={callIcon(call)} size={14} />}
        </span>
        <span className="call__title">{describeCall(call)}</span>
        {detail && <span className="call__detail">{detail}</span>}
        <span className="call__spacer" />
        {ref && <span className="call__ref">{ref}</span>}
        {r && (
          <span className={r.failed ? 'call__summary call__summary--failed' : 'call__summary'} title={r.summary}>
            {r.summary}
          </span>
        )}
        {r && r.duration_ms > 0 && <span className="call__time">{formatDuration(r.duration_ms)}</span>}
      </button>
      {open && (
        <div className="call__body">
          {sql && (
            <div className="call__sql">
              <SqlBlock sql={sql} />
              <button type="button" className="chip call__console" onClick={() => openConsole(sql)}>
                <Icon name="terminal" size={13} /> Open in console
              </button>
            </div>
          )}
          {display && <DisplayBody kind={display.kind} display={display} source={source} chart={chart} />}
          {chart && display?.kind !== 'chart' && displays.chart.Body({ display: display ?? { kind: 'chart' }, source: null, chart })}
          {r === undefined && !sql && <div className="call__waiting">Working…</div>}
        </div>
      )}
    </section>
  );
}
