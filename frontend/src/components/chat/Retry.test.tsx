import { act, fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, Outcome, RunStatus } from '../../api';
import { onRunEvents } from '../../state/actions';
import { createStore, initialState } from '../../state/store';
import { dataset, fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ChatView } from './ChatView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const question = 'Which region has the most orders?';
const at = '2026-11-23T10:00:00Z';
const meta: Outcome['meta'] = {
  steps: 1, tool_calls: 0, failed_calls: 0, prompt_tokens: 0, completion_tokens: 0, duration_ms: 1200, prompt_chars: 0, prompt_tokens_estimate: 0,
};

/** A run that said some text, then ended with status (and reason). */
function run(runId: string, status: RunStatus, text: string, reason?: string): AgentEvent[] {
  const finished: Outcome = { run_id: runId, status, meta, ...(reason ? { reason } : {}), ...(status === 'done' ? { answer: text, summary: text } : {}) };
  return [
    { type: 'run_started', run_id: runId, at },
    { type: 'step_started', run_id: runId, step: 1, at },
    { type: 'text_delta', run_id: runId, step: 1, at, text },
    { type: 'run_finished', run_id: runId, at, finished },
  ];
}

const crashReason = 'Loupe stopped before this answer finished (it was closed or crashed). Retry to answer the question again.';

function chatStore(turns: { runId: string; events: AgentEvent[] }[], running?: string) {
  return createStore({
    ...initialState(),
    chatId: 'chat1',
    datasets: [dataset('orders')],
    chats: [{ id: 'chat1', name: question, created: at, updated: at }],
    turns: { chat1: turns.map((t) => ({ question, runId: t.runId })) },
    events: Object.fromEntries(turns.map((t) => [t.runId, t.events])),
    running: running ? { chat1: running } : {},
  });
}

beforeEach(() => {
  resetFake();
});

describe('Retry', () => {
  it('is offered on an answer cut off by a crash, and answers the question again in the same chat', async () => {
    const store = chatStore([{ runId: 'run_a', events: run('run_a', 'canceled', 'West has the', crashReason) }]);
    renderWithStore(<ChatView />, store);
    const old = screen.getByTestId('turn');
    expect(old).toHaveTextContent('West has the');
    expect(old).toHaveTextContent(crashReason);

    fake.retry.mockResolvedValue({ runId: 'run_b' });
    await act(async () => {
      fireEvent.click(within(old).getByRole('button', { name: 'Retry' }));
    });
    expect(fake.retry).toHaveBeenCalledWith('chat1');
    expect(fake.ask).not.toHaveBeenCalled();
    // The retry is the newest turn, asking the same question, running.
    let turns = screen.getAllByTestId('turn');
    expect(turns).toHaveLength(2);
    expect(turns[1]).toHaveAttribute('data-run', 'run_b');
    expect(turns[1]).toHaveTextContent(question);
    expect(store.get().running['chat1']).toBe('run_b');
    // The interrupted attempt stays, without its Retry button; Stop is offered.
    expect(within(turns[0]!).queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(screen.getByRole('button', { name: /Stop/ })).toBeInTheDocument();

    await act(async () => onRunEvents(store, { runId: 'run_b', chatId: 'chat1', events: run('run_b', 'done', 'West has the most orders.') }));
    turns = screen.getAllByTestId('turn');
    expect(turns[1]).toHaveAttribute('data-status', 'done');
    expect(turns[1]).toHaveTextContent('West has the most orders.');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(store.get().running['chat1']).toBeUndefined();
  });

  it.each<[RunStatus, string]>([
    ['canceled', 'Stopped'],
    ['failed', 'The run failed'],
    ['limit', 'The agent hit a limit'],
  ])('is offered after a run that ended %s', (status, says) => {
    renderWithStore(<ChatView />, chatStore([{ runId: 'run_a', events: run('run_a', status, 'Partial', 'It ended early.') }]));
    const turn = screen.getByTestId('turn');
    expect(turn).toHaveTextContent(says);
    expect(within(turn).getByRole('button', { name: 'Retry' })).toBeEnabled();
  });

  it('is not offered on a finished answer, nor on an older turn', () => {
    renderWithStore(
      <ChatView />,
      chatStore([
        { runId: 'run_a', events: run('run_a', 'failed', 'Partial', 'The model server failed.') },
        { runId: 'run_b', events: run('run_b', 'done', 'West has the most orders.') },
      ]),
    );
    expect(screen.getAllByTestId('turn')).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('is not offered while the retried question runs', () => {
    const running = run('run_b', 'done', '').slice(0, 2);
    renderWithStore(
      <ChatView />,
      chatStore([{ runId: 'run_a', events: run('run_a', 'canceled', 'Partial') }, { runId: 'run_b', events: running }], 'run_b'),
    );
    // Only the newest turn offers it, and that one has not ended.
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('shows a refusal under the question box and keeps the turn retryable', async () => {
    const store = chatStore([{ runId: 'run_a', events: run('run_a', 'canceled', 'Partial') }]);
    renderWithStore(<ChatView />, store);
    fake.retry.mockRejectedValue(
      new FakeApiError('busy', 'This conversation is still answering the previous question.', 'Wait for the answer, or press Stop (Esc) first.'),
    );
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('The question was not sent');
    expect(alert).toHaveTextContent('still answering the previous question');
    expect(screen.getAllByTestId('turn')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Retry' })).toBeEnabled();
  });
});
