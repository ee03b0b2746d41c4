// The trace of one run: the agent's events folded into steps the chat view
// draws. Pure functions, so a recorded event sequence renders the same way
// live and when a saved conversation is opened again.
import type { AgentEvent, Outcome, ToolView } from '../api';

type CallEvent = NonNullable<AgentEvent['call']>;
type ResultEvent = NonNullable<AgentEvent['result']>;
type ChartEvent = NonNullable<AgentEvent['chart']>;
type Question = NonNullable<AgentEvent['question']>;

/** One tool call, its result when it has arrived, and its chart if it drew one. */
export interface CallView {
  /** Unique in the run: models may reuse call ids across steps ("call_1"). */
  key: string;
  id: string;
  name: string;
  args: Record<string, unknown>;
  step: number;
  /** How the tool says its calls are shown (its Spec's View). */
  view?: ToolView;
  result?: ResultEvent;
  chart?: ChartEvent;
}

/** One model call: what it thought, what it wrote, which tools it called. */
export interface StepView {
  step: number;
  thinking: string;
  text: string;
  calls: CallView[];
  started?: string;
}

/** A whole run as the chat view shows it. */
export interface TraceView {
  runId: string;
  steps: StepView[];
  question?: Question;
  outcome?: Outcome;
  running: boolean;
  started?: string;
  promptTokens: number;
  completionTokens: number;
}

/** buildTrace folds a run's events, in order, into its trace. */
export function buildTrace(runId: string, events: readonly AgentEvent[]): TraceView {
  const t: TraceView = {
    runId,
    steps: [],
    running: true,
    promptTokens: 0,
    completionTokens: 0,
  };
  const calls = new Map<string, CallView>();
  const step = (n: number | undefined, at?: string): StepView => {
    const num = n ?? 0;
    let s = t.steps.find((x) => x.step === num);
    if (s === undefined) {
      s = { step: num, thinking: '', text: '', calls: [] };
      if (at !== undefined) s.started = at;
      t.steps.push(s);
    }
    return s;
  };
  for (const e of events) {
    switch (e.type) {
      case 'run_started':
        t.started = e.at;
        break;
      case 'step_started':
        step(e.step, e.at);
        break;
      case 'text_delta':
        step(e.step).text += e.text ?? '';
        break;
      case 'thinking_delta':
        step(e.step).thinking += e.text ?? '';
        break;
      case 'text_reset': {
        const s = step(e.step);
        s.text = '';
        s.thinking = '';
        break;
      }
      case 'tool_call':
        if (e.call) addCall(step(e.step), calls, e.call, e.step ?? 0);
        break;
      case 'tool_result':
        if (e.result) {
          const c =
            calls.get(callKey(e.step, e.result.call_id)) ??
            addCall(step(e.step), calls, stubCall(e.result), e.step ?? 0);
          c.result = e.result;
        }
        break;
      case 'chart':
        if (e.chart) {
          const c = calls.get(callKey(e.step, e.chart.call_id));
          if (c) c.chart = e.chart;
        }
        break;
      case 'question':
        if (e.question) t.question = e.question;
        break;
      case 'usage':
        t.promptTokens += e.usage?.prompt_tokens ?? 0;
        t.completionTokens += e.usage?.completion_tokens ?? 0;
        break;
      case 'run_finished':
        t.running = false;
        if (e.finished) {
          t.outcome = e.finished;
          if (e.finished.question) t.question = e.finished.question;
        }
        break;
    }
  }
  t.steps.sort((a, b) => a.step - b.step);
  return t;
}

function callKey(step: number | undefined, id: string): string {
  return `${step ?? 0}:${id}`;
}

function addCall(s: StepView, calls: Map<string, CallView>, c: CallEvent, stepNum: number): CallView {
  const key = callKey(stepNum, c.id);
  const view: CallView = { key, id: c.id, name: c.name, args: parseArgs(c.arguments), step: stepNum };
  if (c.view) view.view = c.view;
  calls.set(key, view);
  s.calls.push(view);
  return view;
}

function stubCall(r: ResultEvent): CallEvent {
  return { id: r.call_id, name: r.name, arguments: {} };
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (typeof raw === 'string') {
    try {
      const v: unknown = JSON.parse(raw);
      return isRecord(v) ? v : {};
    } catch {
      return {};
    }
  }
  return isRecord(raw) ? raw : {};
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * answerStep is the step whose text is the run's answer: the last step,
 * when it called no tools and wrote something. The chat view shows it as the
 * answer (summary and findings) rather than as a step of the work.
 */
export function answerStep(t: TraceView): StepView | undefined {
  const last = t.steps[t.steps.length - 1];
  if (last === undefined || last.calls.length > 0 || last.text.trim() === '') return undefined;
  return last;
}

/** The SQL a call ran or charted, if any. */
export function callSQL(c: CallView): string | undefined {
  const fromResult = c.result?.display?.sql;
  if (fromResult) return fromResult;
  const fromChart = c.chart?.sql;
  if (fromChart) return fromChart;
  const a = c.args['sql'] ?? c.args['query'];
  return typeof a === 'string' && a.trim() !== '' ? a : undefined;
}

/** The argument names that may name a call's table, for "{table}". */
const tableArgs = ['table', 'table_name', 'dataset', 'name'];

/** A call's argument as text, for a view's "{arg}"; undefined when absent. */
function argText(c: CallView, name: string): string | undefined {
  for (const k of name === 'table' ? tableArgs : [name]) {
    const v = c.args[k];
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') return String(v);
  }
  return undefined;
}

/**
 * fillView fills a view's template with the call's arguments: "{arg}"
 * becomes the argument, and an optional part "[…]" is dropped when an
 * argument it holds is missing.
 */
export function fillView(template: string, c: CallView): string {
  const fill = (s: string): string | undefined => {
    let missing = false;
    const out = s.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = argText(c, name);
      if (v === undefined) missing = true;
      return v ?? '';
    });
    return missing ? undefined : out;
  };
  const withOptional = template.replace(/\[([^\]]*)\]/g, (_, part: string) => fill(part) ?? '');
  return fill(withOptional) ?? withOptional.replace(/\{\w+\}/g, '').trim();
}

/**
 * A tool call said in plain words, as the tool's view says it ("Ran a
 * query", "Looked at table orders"); a tool without one by its name ("Used
 * search schema").
 */
export function describeCall(c: CallView): string {
  const running = c.result === undefined;
  const v = c.view;
  if (running && v?.doing) return fillView(v.doing, c) + '…';
  if (!running && v?.did) return fillView(v.did, c);
  const words = c.name.replace(/_/g, ' ');
  return running ? `Using ${words}…` : `Used ${words}`;
}

/** A short subtitle for a call: the query's purpose, the chart's title. */
export function callDetail(c: CallView): string | undefined {
  for (const key of ['purpose', 'title', 'finding', 'where']) {
    const v = c.args[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return c.result?.display?.text && c.result.display.kind === 'table' ? c.result.display.text : undefined;
}

/** Milliseconds as the trace shows them: "12 ms", "1.4 s". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A finding's text without the evidence refs it ends with ("… [q1, c1]"): the UI shows them as links. */
export function stripRefs(text: string, refs: readonly string[]): string {
  if (refs.length === 0) return text;
  return text.replace(/\s*\[([A-Za-z]+\d+)(\s*,\s*[A-Za-z]+\d+)*\]\s*$/, (m) => {
    const inside = m.trim().slice(1, -1).split(',').map((r) => r.trim());
    return inside.every((r) => refs.includes(r)) ? '' : m;
  });
}

/** The DOM id of the element showing a run's evidence ref ("q1", "c1"). */
export function evidenceId(runId: string, ref: string): string {
  return `ev-${runId}-${ref}`.replace(/[^A-Za-z0-9_-]/g, '_');
}
