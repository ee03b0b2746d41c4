import { useMemo, useRef, useState } from 'react';
import type { ToolChart } from '../../api';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import type { CallView, TraceView } from '../../trace/trace';
import { DataGrid, type GridSource } from '../grid/DataGrid';
import { callRef } from './CallCard';
import { ChartEditor } from './ChartEditor';
import { ChartView } from './ChartView';

/** The chart and the table an answer shows under its summary. */
export interface Final {
  chart?: { call: CallView; chart: ToolChart };
  table?: { call: CallView; source: GridSource };
}

/**
 * finalResult picks what the answer rests on, to show it inline rather than
 * only inside a folded step: the chart and the query its findings cite
 * first (the first cited of each kind), else the run's last chart and last
 * table. Failed and skipped calls never count.
 */
export function finalResult(t: TraceView): Final {
  const calls = t.steps.flatMap((s) => s.calls).filter((c) => c.result !== undefined && !c.result.failed && !c.result.skipped);
  const chartOf = (c: CallView) => c.chart?.chart ?? c.result?.display?.chart;
  const tableOf = (c: CallView): GridSource | null => {
    const table = c.result?.display?.table;
    return table ? { ref: table.ref, columns: table.columns, kept: table.kept, total: table.rows, preview: table.preview ?? [] } : null;
  };
  const cited = (t.outcome?.findings ?? []).flatMap((f) => f.evidence ?? []);
  const byRef = (ref: string) => calls.find((c) => callRef(c) === ref);
  const out: Final = {};
  for (const ref of cited) {
    const c = byRef(ref);
    if (!c) continue;
    const ch = chartOf(c);
    if (!out.chart && ch) out.chart = { call: c, chart: ch };
    const tb = tableOf(c);
    if (!out.table && tb) out.table = { call: c, source: tb };
  }
  for (const c of [...calls].reverse()) {
    const ch = chartOf(c);
    if (!out.chart && ch) out.chart = { call: c, chart: ch };
    const tb = tableOf(c);
    if (!out.table && tb) out.table = { call: c, source: tb };
  }
  return out;
}

/**
 * The answer's result, under its summary: the chart, then the table it was
 * drawn from or cites. The chart can be edited by hand (ChartEditor); the
 * edit is kept with the answer of run runId.
 */
export function FinalResult({ final, runId }: { final: Final; runId?: string }) {
  const { chart, table } = final;
  const label = useMemo(() => [chart && 'chart', table && 'table'].filter(Boolean).join(' and '), [chart, table]);
  const chatId = useStore((s) => s.chatId);
  const a = useActions();
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  if (!chart && !table) return null;
  const editable = chart && chatId && runId ? { chatId, runId, callId: chart.call.id } : null;
  const close = () => {
    setEditing(false);
    // Back to the button once it is drawn again.
    setTimeout(() => editButton.current?.focus(), 0);
  };
  return (
    <section className="final" data-testid="final-result" aria-label={`The answer's ${label}`}>
      {chart && (
        <ChartView
          spec={chart.chart.spec}
          title={chart.chart.title}
          actions={
            editable && (
              <>
                {chart.chart.edited && <span className="chart__edited" data-testid="chart-edited">Edited by you</span>}
                <button ref={editButton} type="button" className="chip" aria-expanded={editing} onClick={() => setEditing((v) => !v)}>
                  <Icon name="pencil" size={13} /> Edit chart
                </button>
              </>
            )
          }
        />
      )}
      {chart && editable && editing && (
        <ChartEditor
          chart={chart.chart}
          save={(spec) => a.editChart(editable.chatId, editable.runId, editable.callId, spec, chart.chart.title)}
          reset={chart.chart.edited ? () => a.resetChart(editable.chatId, editable.runId, editable.callId) : undefined}
          onClose={close}
        />
      )}
      {table && (
        <div className="final__table">
          <DataGrid source={table.source} />
        </div>
      )}
    </section>
  );
}
