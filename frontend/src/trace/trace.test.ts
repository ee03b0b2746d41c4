import { describe, expect, it } from 'vitest';
import type { AgentEvent, ToolView } from '../api';
import { recordedRun } from '../test/fakeApi';
import { answerStep, buildTrace, callSQL, describeCall, formatDuration, stripRefs, type CallView } from './trace';

describe('buildTrace', () => {
  const events = recordedRun('run-chart');
  const runId = events[0]!.run_id;

  it('folds a recorded run into its steps, keeping calls apart when ids repeat across steps', () => {
    const t = buildTrace(runId, events);
    expect(t.running).toBe(false);
    expect(t.steps.map((s) => s.step)).toEqual([1, 2, 3, 4]);
    const [s1, s2, s3] = t.steps;
    expect(s1!.thinking).toContain('Look at the table first');
    expect(s1!.calls.map((c) => c.name)).toEqual(['describe_table']);
    expect(s1!.calls[0]!.result?.name).toBe('describe_table');
    // Every step's call is "call_1"; each result still lands on its own call.
    expect(s2!.text).toBe('Let me count requests per agency.');
    expect(s2!.calls[0]!.result?.ref).toBe('q1');
    expect(s2!.calls[0]!.result?.display.table?.columns.map((c) => c.name)).toEqual(['agency', 'requests']);
    expect(s3!.calls[0]!.chart?.ref).toBe('c1');
    expect(s3!.calls[0]!.result?.display.chart?.title).toBe('311 requests by agency');
    expect(t.promptTokens).toBeGreaterThan(0);
    expect(t.outcome?.findings).toHaveLength(3);
  });

  it('joins text deltas into the answer step while streaming', () => {
    const firstDelta = events.findIndex((e) => e.type === 'text_delta' && e.step === 4);
    const t = buildTrace(runId, events.slice(0, firstDelta + 3));
    expect(t.running).toBe(true);
    const answer = answerStep(t);
    expect(answer?.step).toBe(4);
    expect(answer?.text).toBe('The Department of Finance (DOF) handles the most 311 requests in this sample: 471 of 1,000, almost twice the Depa');
  });

  it('drops a step’s text on text_reset', () => {
    const ev = (type: AgentEvent['type'], text?: string): AgentEvent =>
      ({ type, run_id: 'r', step: 1, at: '2026-01-01T00:00:00Z', ...(text ? { text } : {}) }) as AgentEvent;
    const t = buildTrace('r', [ev('step_started'), ev('text_delta', 'garbled'), ev('text_reset'), ev('text_delta', 'clean')]);
    expect(t.steps[0]!.text).toBe('clean');
  });

  it('keeps the question of a run that needs input', () => {
    const q = recordedRun('run-question');
    const t = buildTrace(q[0]!.run_id, q);
    expect(t.outcome?.status).toBe('needs_input');
    expect(t.question).toEqual({ text: 'Which period do you mean?', options: ['2023', '2024', 'All years'] });
    expect(answerStep(t)).toBeUndefined();
  });
});

describe('plain words', () => {
  const call = (name: string, args: Record<string, unknown>, done = true) => ({
    key: '1:c',
    id: 'c',
    name,
    args,
    step: 1,
    ...(done ? { result: { call_id: 'c', name, summary: '', display: { kind: 'text' }, duration_ms: 1 } } : {}),
  });

  // The views the tools' Specs give (tools/*/…go, Spec().View).
  const views: Record<string, ToolView> = {
    run_sql: { icon: 'table', doing: 'Running a query', did: 'Ran a query' },
    describe_table: { icon: 'eye', doing: 'Looking at table[ {table}]', did: 'Looked at table[ {table}]' },
    sample_rows: { icon: 'eye', doing: 'Sampling rows[ of {table}]', did: 'Sampled rows[ of {table}]' },
    find_outliers: { icon: 'warning', doing: 'Looking for outliers[ in {table}]', did: 'Looked for outliers[ in {table}]' },
    odd: { did: 'Compared {a} with {b}[ by {by}]' },
  };
  const viewed = (name: string, args: Record<string, unknown>, done: boolean) => {
    const c = call(name, args, done) as CallView;
    const v = views[name];
    return v ? { ...c, view: v } : c;
  };

  it.each([
    ['run_sql', {}, true, 'Ran a query'],
    ['run_sql', {}, false, 'Running a query…'],
    ['describe_table', { table: 'orders' }, true, 'Looked at table orders'],
    ['describe_table', { table_name: 'orders' }, false, 'Looking at table orders…'],
    ['describe_table', {}, true, 'Looked at table'],
    ['sample_rows', { dataset: 'orders' }, true, 'Sampled rows of orders'],
    ['sample_rows', {}, true, 'Sampled rows'],
    ['find_outliers', { table: 'payments', column: 'amount' }, true, 'Looked for outliers in payments'],
    ['find_outliers', { sql: 'SELECT 1' }, false, 'Looking for outliers…'],
    ['odd', { a: 2023, b: '2024', by: 'region' }, true, 'Compared 2023 with 2024 by region'],
    ['odd', { a: 2023, b: '2024' }, true, 'Compared 2023 with 2024'],
    ['some_new_tool', {}, true, 'Used some new tool'],
    ['some_new_tool', {}, false, 'Using some new tool…'],
  ])('%s %j (done %s) reads "%s"', (name, args, done, want) => {
    expect(describeCall(viewed(name, args, done))).toBe(want);
  });

  it('takes each call its view from the recorded tool_call event', () => {
    const events = recordedRun('run-chart');
    const t = buildTrace(events[0]!.run_id, events);
    const calls = t.steps.flatMap((s) => s.calls);
    expect(calls.map((c) => c.view?.icon)).toEqual(['eye', 'table', 'chart']);
    expect(calls.map((c) => describeCall(c))).toEqual(['Looked at table service_requests', 'Ran a query', 'Drew a chart']);
  });

  it('finds the SQL of a call in its result, its chart or its arguments', () => {
    expect(callSQL(call('run_sql', { sql: 'SELECT 1' }, false) as never)).toBe('SELECT 1');
    expect(callSQL(call('describe_table', { table: 't' }) as never)).toBeUndefined();
  });

  it('formats durations', () => {
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(1430)).toBe('1.4 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });

  it('strips the refs a finding ends with, only when they are its evidence', () => {
    expect(stripRefs('DOF received 471 [q1, c1]', ['q1', 'c1'])).toBe('DOF received 471');
    expect(stripRefs('See [q9]', ['q1'])).toBe('See [q9]');
  });
});
