import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, recordedRun, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { Turn, type TurnProps } from './Turn';

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

const chartRun = recordedRun('run-chart');
const runId = chartRun[0]!.run_id;

function props(over: Partial<TurnProps> = {}): TurnProps {
  return {
    question: 'Which agency gets the most 311 requests?',
    runId,
    events: chartRun,
    latest: true,
    busy: false,
    onAnswer: vi.fn(),
    onReport: vi.fn(),
    onFollowUp: vi.fn(),
    ...over,
  };
}

describe('Turn', () => {
  it('streams: steps in plain words, then the answer text as it arrives', () => {
    const upTo = (pred: (i: number) => boolean) => chartRun.filter((_, i) => pred(i));
    const firstDelta = chartRun.findIndex((e) => e.type === 'text_delta' && e.step === 4);
    const { rerender } = renderWithStore(<Turn {...props({ events: upTo((i) => i < 5) })} />);
    // A tool call without its result yet is said in the present tense.
    expect(screen.getByText('Looking at table service_requests…')).toBeInTheDocument();
    expect(screen.getByRole('article')).toHaveAttribute('data-status', 'running');

    rerender(<Turn {...props({ events: upTo((i) => i <= firstDelta + 1) })} />);
    expect(screen.getByText('Looked at table service_requests')).toBeInTheDocument();
    expect(screen.getByText('Ran a query')).toBeInTheDocument();
    expect(screen.getByText('Drew a chart')).toBeInTheDocument();
    expect(screen.getByTestId('answer')).toHaveTextContent(
      'The Department of Finance (DOF) handles the most 311 requests in this sampl',
    );
    expect(screen.getByTestId('answer')).toHaveClass('answer--streaming');
    // Thinking is there, folded away.
    expect(screen.getByText('Thinking').closest('details')).not.toHaveAttribute('open');
    // The text written before a tool call belongs to its step.
    expect(screen.getByText('Let me count requests per agency.')).toBeInTheDocument();
  });

  it('shows the summary and findings when done, and a finding’s ref opens its query', async () => {
    renderWithStore(<Turn {...props()} />);
    const answer = screen.getByTestId('answer');
    expect(answer).toHaveTextContent('almost twice the Department of Transportation (243).');
    const findings = within(screen.getByTestId('findings'));
    expect(findings.getByText('DOF received 471 of the 1,000 requests')).toBeInTheDocument();
    expect(findings.getAllByRole('button', { name: 'q1' })).toHaveLength(3);

    // The query's card is closed; its SQL is not shown.
    const card = document.getElementById(`ev-${runId}-q1`)!;
    expect(within(card).queryByTestId('sql')).toBeNull();
    fireEvent.click(findings.getAllByRole('button', { name: 'q1' })[0]!);
    const sql = await within(card).findByTestId('sql');
    expect(sql).toHaveTextContent('SELECT agency, count(*) AS requests FROM service_requests');
    expect(card).toHaveClass('call--flash');
    // The result grid shows the preview rows the event carried.
    expect(within(card as HTMLElement).getByTestId('grid-count')).toHaveTextContent('8 rows');
    expect(within(card as HTMLElement).getAllByText('DOF').length).toBeGreaterThan(0);
  });

  it('draws the chart with vega-embed and exports it', async () => {
    renderWithStore(<Turn {...props()} />);
    await waitFor(() => expect(embed).toHaveBeenCalled());
    const spec = embed.mock.calls[0]![1] as { mark: unknown; data: { values: unknown[] } };
    expect(spec.mark).toBe('bar');
    expect(spec.data.values).toHaveLength(8);
    const png = await screen.findByRole('button', { name: /PNG/ });
    await waitFor(() => expect(png).toBeEnabled());
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    await act(async () => {
      fireEvent.click(png);
    });
    expect(click).toHaveBeenCalled();
  });

  it('offers Generate report and Ask follow-up when done', () => {
    const p = props();
    renderWithStore(<Turn {...p} />);
    fireEvent.click(screen.getByRole('button', { name: /Generate report/ }));
    expect(p.onReport).toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: /Ask follow-up/ }));
    expect(p.onFollowUp).toHaveBeenCalled();
  });

  it('asks the clarifying question with answers to click', () => {
    const q = recordedRun('run-question');
    const p = props({ runId: q[0]!.run_id, events: q });
    renderWithStore(<Turn {...p} />);
    const card = within(screen.getByTestId('question'));
    expect(card.getByText('Which period do you mean?')).toBeInTheDocument();
    fireEvent.click(card.getByRole('button', { name: '2024' }));
    expect(p.onAnswer).toHaveBeenCalledWith('2024');
    expect(screen.queryByRole('button', { name: /Generate report/ })).toBeNull();
  });

  it('does not offer answers on an older turn', () => {
    const q = recordedRun('run-question');
    renderWithStore(<Turn {...props({ runId: q[0]!.run_id, events: q, latest: false })} />);
    expect(within(screen.getByTestId('question')).getByRole('button', { name: '2024' })).toBeDisabled();
  });

  it('opens a query in the console', async () => {
    const { store } = renderWithStore(<Turn {...props()} />);
    fireEvent.click(screen.getByText('Ran a query'));
    const card = document.getElementById(`ev-${runId}-q1`)!;
    fireEvent.click(within(card).getByRole('button', { name: /Open in console/ }));
    expect(store.get().view.kind).toBe('console');
    expect(store.get().consoleTabs.find((t) => t.id === store.get().consoleTab)?.text).toContain('GROUP BY agency');
    expect(fake.page).not.toHaveBeenCalled();
  });

  it('says which numbers of the answer no result backs, and leaves a backed answer alone', () => {
    const withNumbers = (numbers: { text: string; source?: string }[], mark: string) =>
      chartRun.map((e) =>
        e.type === 'run_finished' && e.finished
          ? {
              ...e,
              finished: {
                ...e.finished,
                summary: (e.finished.summary ?? '') + mark,
                numbers: numbers.map((n) => ({ number: { text: n.text, value: Number(n.text) }, ...(n.source ? { source: n.source } : {}) })),
              },
            }
          : e,
      );
    const { unmount } = renderWithStore(
      <Turn {...props({ events: withNumbers([{ text: '40', source: 'q1' }, { text: '37' }], ' The total is 37 [unverified].') })} />,
    );
    expect(screen.getByTestId('answer')).toHaveTextContent('The total is 37 [unverified].');
    expect(screen.getByTestId('unverified')).toHaveTextContent('Not found in any result of this run: 37.');
    unmount();
    renderWithStore(<Turn {...props({ events: withNumbers([{ text: '40', source: 'q1' }], '') })} />);
    expect(screen.queryByTestId('unverified')).toBeNull();
  });
});

describe('Turn final result', () => {
  it('shows the chart and the table the answer rests on under the summary, not only in a folded step', async () => {
    renderWithStore(<Turn {...props()} />);
    const final = await screen.findByTestId('final-result');
    const answer = screen.getByTestId('answer');
    expect(answer).toContainElement(final);
    expect(within(final).getByTestId('chart')).toBeInTheDocument();
    expect(within(final).getByRole('grid')).toBeInTheDocument();
    // The chart is not drawn twice: its step stays folded.
    expect(screen.getAllByTestId('chart')).toHaveLength(1);
  });

  it('shows none while the run streams', () => {
    const firstDelta = chartRun.findIndex((e) => e.type === 'text_delta' && e.step === 4);
    renderWithStore(<Turn {...props({ events: chartRun.slice(0, firstDelta + 1) })} />);
    expect(screen.queryByTestId('final-result')).toBeNull();
  });
});
