import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolDisplay, ToolView } from '../../api';
import { resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import type { CallView } from '../../trace/trace';
import { CallCard } from './CallCard';
import { callIcon, displays, opensByDefault } from './displays';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const embed = vi.hoisted(() => vi.fn());
vi.mock('vega-embed', () => ({ default: embed }));

beforeEach(() => {
  resetFake();
  embed.mockReset();
  embed.mockImplementation(async (el: HTMLElement) => {
    el.innerHTML = '<svg class="marks"></svg>';
    return { view: { toImageURL: vi.fn(async () => 'data:image/png;base64,AA==') }, finalize: vi.fn() };
  });
});

function call(name: string, display: ToolDisplay | undefined, view?: ToolView, args: Record<string, unknown> = {}): CallView {
  const c: CallView = { key: '1:c', id: 'c', name, args, step: 1 };
  if (view) c.view = view;
  if (display) c.result = { call_id: 'c', name, summary: 'done', display, duration_ms: 3, ref: 'q1' };
  return c;
}

const outlierTable: ToolDisplay = {
  kind: 'table',
  sql: 'SELECT * FROM "payments" WHERE amount > 156',
  table: {
    ref: 'r1',
    columns: [
      { name: 'id', type: 'BIGINT' },
      { name: 'amount', type: 'BIGINT' },
    ],
    rows: 2,
    kept: 2,
    truncated: false,
    preview: [
      [97, 2500],
      [98, 1000],
    ],
  },
};

describe('CallCard', () => {
  it('shows a tool it has never heard of by its Spec view and draws its result by display kind', () => {
    const view = { icon: 'warning', doing: 'Looking for outliers[ in {table}]', did: 'Looked for outliers[ in {table}]' };
    renderWithStore(
      <CallCard call={call('find_outliers', outlierTable, view, { table: 'payments' })} runId="run1" open onToggle={() => {}} />,
    );
    expect(screen.getByText('Looked for outliers in payments')).toBeInTheDocument();
    // The table kind draws the grid with the rows, and the query behind it.
    expect(screen.getByText('2,500')).toBeInTheDocument();
    expect(screen.getByText(/WHERE amount > 156/)).toBeInTheDocument();
    expect(screen.getByText('q1')).toBeInTheDocument();
  });

  it.each([
    ['text', { kind: 'text', text: 'orders: 40 rows' } as ToolDisplay, 'orders: 40 rows'],
    ['error', { kind: 'error', text: 'unknown column "regoin"' } as ToolDisplay, 'unknown column "regoin"'],
    [
      'verdict',
      { kind: 'verdict', data: { finding: 'A beats B', verdict: 'supported', reasons: ['holds in every subgroup'] } } as ToolDisplay,
      'holds in every subgroup',
    ],
  ])('draws a %s result by its kind', (_, display, text) => {
    renderWithStore(<CallCard call={call('whatever_tool', display)} runId="run1" open onToggle={() => {}} />);
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.getByText('Used whatever tool')).toBeInTheDocument();
  });

  it('draws a chart kind as a chart', async () => {
    const chart = { title: 'By region', spec: { mark: 'bar' }, mark: 'bar', rows: 4 };
    renderWithStore(
      <CallCard call={call('plot_it', { kind: 'chart', chart, sql: 'SELECT 1' })} runId="run1" open onToggle={() => {}} />,
    );
    await vi.waitFor(() => expect(embed).toHaveBeenCalled());
  });
});

describe('the display registry', () => {
  it('covers every display kind the Go side makes', () => {
    // tools/tools.go: KindText … KindError.
    expect(Object.keys(displays).sort()).toEqual(['chart', 'error', 'profile', 'question', 'table', 'text', 'verdict']);
  });

  it('takes the icon from the tool, else from the kind, else a sparkle', () => {
    expect(callIcon(call('x', outlierTable, { icon: 'warning' }))).toBe('warning');
    expect(callIcon(call('x', outlierTable, { icon: 'no-such-icon' }))).toBe('table');
    expect(callIcon(call('x', { kind: 'profile' }))).toBe('pulse');
    expect(callIcon(call('x', undefined))).toBe('sparkle');
  });

  it('opens successful charts by themselves, whatever tool drew them', () => {
    const chart = { title: 't', spec: {}, mark: 'image', rows: 1 };
    expect(opensByDefault(call('run_python', { kind: 'chart', chart }))).toBe(true);
    expect(opensByDefault(call('create_chart', { kind: 'text', text: 'no rows: no chart' }))).toBe(false);
    expect(opensByDefault(call('run_sql', outlierTable))).toBe(false);
    const failed = call('create_chart', { kind: 'error', text: 'bad spec' });
    failed.result!.failed = true;
    expect(opensByDefault(failed)).toBe(false);
    expect(opensByDefault(call('create_chart', undefined))).toBe(false);
  });
});
