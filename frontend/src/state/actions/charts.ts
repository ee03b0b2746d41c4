// Charts changed by hand: the edit is checked and kept by Go with the
// answer (api.editChart); here the answer's events show it at once.
import * as api from '../../api';
import type { AgentEvent, ToolChart } from '../../api';
import type { Store } from '../store';

/** editChart keeps spec (Vega-Lite JSON text) as the chart of call callId and shows it. Rejects with Go's problem. */
export async function editChart(store: Store, chatId: string, runId: string, callId: string, spec: string, title: string): Promise<ToolChart> {
  const chart = await api.editChart(chatId, runId, callId, spec, title);
  showChart(store, runId, callId, chart);
  return chart;
}

/** resetChart goes back to the chart drawn with the answer. */
export async function resetChart(store: Store, chatId: string, runId: string, callId: string): Promise<ToolChart> {
  const chart = await api.resetChart(chatId, runId, callId);
  showChart(store, runId, callId, { ...chart, edited: false });
  return chart;
}

/** showChart puts chart wherever run runId shows the chart of call callId: its result, its chart event, the outcome's evidence. */
export function showChart(store: Store, runId: string, callId: string, chart: ToolChart): void {
  store.set((s) => {
    const evs = s.events[runId];
    if (!evs) return {};
    return { events: { ...s.events, [runId]: evs.map((e) => withChart(e, callId, chart)) } };
  });
}

function withChart(e: AgentEvent, callId: string, chart: ToolChart): AgentEvent {
  if (e.type === 'tool_result' && e.result?.call_id === callId && e.result.display.chart) {
    return { ...e, result: { ...e.result, display: { ...e.result.display, chart } } };
  }
  if (e.type === 'chart' && e.chart?.call_id === callId) return { ...e, chart: { ...e.chart, chart } };
  if (e.type === 'run_finished' && e.finished?.evidence) {
    return {
      ...e,
      finished: { ...e.finished, evidence: e.finished.evidence.map((ev) => (ev.call_id === callId && ev.chart ? { ...ev, chart } : ev)) },
    };
  }
  return e;
}
