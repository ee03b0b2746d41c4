import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { activeTab, openConsole, TABS_KEY, withSavedTabs } from '../../state/actions/console';
import { createStore, initialState, type Store } from '../../state/store';
import type { HistoryEntry, QueryResult } from '../../api';
import { SqlConsole } from './SqlConsole';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());
vi.mock('vega-embed', () => ({ default: vi.fn() }));

beforeEach(() => {
  resetFake();
  localStorage.clear();
});

const result = (ref: string, value: string): QueryResult => ({
  ref,
  columns: [{ name: 'v', type: 'VARCHAR' }],
  rows: 1,
  kept: 1,
  truncated: false,
  elapsedMs: 1,
  page: { offset: 0, rows: [[value]] },
});

const tabNames = () => screen.getAllByTestId('console-tab').map((li) => li.querySelector('.console-tab__title')?.textContent);
const current = (store: Store) => activeTab(store.get());

async function shown(store: Store) {
  renderWithStore(<SqlConsole />, store);
  await screen.findByTestId('sql-editor');
}

describe('console tabs', () => {
  it('opens SQL from elsewhere in a new tab, keeping what the other tab holds', async () => {
    const store = createStore();
    openConsole(store, 'SELECT 1 AS v');
    // The first tab was blank: the SQL fills it rather than adding one.
    expect(store.get().consoleTabs).toHaveLength(1);
    fake.runConsoleSQL.mockResolvedValueOnce(result('q1', 'first'));
    await shown(store);
    fireEvent.click(screen.getByRole('button', { name: /Run/ }));
    expect(await screen.findByText('first')).toBeInTheDocument();
    expect(fake.runConsoleSQL).toHaveBeenCalledWith('tab-1', 'SELECT 1 AS v');

    act(() => openConsole(store, 'SELECT 2 AS v'));
    expect(tabNames()).toEqual(['Query 1', 'Query 2']);
    expect(current(store).text).toBe('SELECT 2 AS v');
    expect(store.get().consoleTabs[0]!.text).toBe('SELECT 1 AS v');
    await waitFor(() => expect(screen.getByTestId('sql-editor')).toHaveTextContent('SELECT 2 AS v'));
    expect(screen.queryByText('first')).toBeNull(); // the new tab has no result yet

    // Back to the first tab: its SQL and its result are there.
    fireEvent.click(screen.getByRole('button', { name: /^Query 1/ }));
    expect(await screen.findByText('first')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('sql-editor')).toHaveTextContent('SELECT 1 AS v'));
    expect(screen.getByRole('button', { name: /^Query 1/ })).toHaveAttribute('aria-current', 'true');
  });

  it('stops the shown tab query with Stop and Esc, and a result lands in the tab that ran it', async () => {
    const store = createStore();
    openConsole(store, 'SELECT slow');
    let finish: (r: QueryResult) => void = () => undefined;
    fake.runConsoleSQL.mockImplementationOnce(() => new Promise((res) => (finish = res)));
    await shown(store);
    fireEvent.click(screen.getByRole('button', { name: /Run/ }));
    expect(await screen.findByTestId('console-running')).toBeInTheDocument();
    fireEvent.click(screen.getByTitle('Stop the running query (Esc)'));
    expect(fake.cancelConsoleSQL).toHaveBeenCalledWith('tab-1');
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(fake.cancelConsoleSQL).toHaveBeenCalledTimes(2);

    // Another tab meanwhile: it is not running, Esc there stops nothing.
    fireEvent.click(screen.getByRole('button', { name: 'New query tab' }));
    expect(screen.queryByTestId('console-running')).toBeNull();
    expect(within(screen.getAllByTestId('console-tab')[0]!).getByLabelText('running')).toBeInTheDocument();
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(fake.cancelConsoleSQL).toHaveBeenCalledTimes(2);

    await act(async () => finish(result('q9', 'late')));
    expect(store.get().consoleTabs[0]!.result?.ref).toBe('q9');
    expect(current(store).result).toBeNull();
    expect(store.get().consoleRuns).toBe(1);
  });

  it('renames with F2, closes with the close button (stopping its query), and keeps a blank tab when the last closes', async () => {
    const store = createStore();
    openConsole(store, 'SELECT 1');
    openConsole(store, 'SELECT 2');
    await shown(store);
    const second = screen.getByRole('button', { name: /^Query 2/ });
    fireEvent.keyDown(second, { key: 'F2' });
    const input = screen.getByRole('textbox', { name: 'Tab name' });
    fireEvent.change(input, { target: { value: 'Regions' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(tabNames()).toEqual(['Query 1', 'Regions']);

    // Arrow keys move between tabs.
    fireEvent.keyDown(screen.getByRole('button', { name: /^Regions/ }), { key: 'ArrowLeft' });
    expect(current(store).text).toBe('SELECT 1');

    fireEvent.click(screen.getByRole('button', { name: 'Close Query 1' }));
    expect(tabNames()).toEqual(['Regions']);
    expect(current(store).text).toBe('SELECT 2');
    fireEvent.click(screen.getByRole('button', { name: 'Close Regions' }));
    expect(store.get().consoleTabs).toHaveLength(1);
    expect(current(store).text).toBe('');
  });

  it('keeps the tabs names and text in localStorage, not their results', async () => {
    const store = createStore();
    openConsole(store, 'SELECT 1');
    openConsole(store, 'SELECT 2');
    store.set((s) => ({ consoleTabs: s.consoleTabs.map((t) => ({ ...t, result: result('q1', 'x') })) }));
    const saved = () => JSON.parse(localStorage.getItem(TABS_KEY) ?? '{"tabs":[]}') as { tabs: { text: string }[] };
    await waitFor(() => expect(saved().tabs.map((t) => t.text)).toEqual(['SELECT 1', 'SELECT 2']));
    expect(JSON.stringify(saved())).not.toContain('q1');
    const back = withSavedTabs(initialState());
    expect(back.consoleTabs.map((t) => [t.title, t.text, t.result])).toEqual([
      ['Query 1', 'SELECT 1', null],
      ['Query 2', 'SELECT 2', null],
    ]);
    expect(back.consoleTab).toBe(store.get().consoleTab);
    localStorage.setItem(TABS_KEY, '{broken');
    expect(withSavedTabs(initialState()).consoleTabs).toHaveLength(1);
  });
});

describe('query history', () => {
  const entries: HistoryEntry[] = [
    { id: 'h2', sql: 'SELECT * FROM ordrs', at: new Date().toISOString(), durationMs: 2, outcome: 'failed', rows: 0, error: 'Table ordrs does not exist' },
    { id: 'h1', sql: 'SELECT region, count(*) FROM orders GROUP BY 1', at: new Date().toISOString(), durationMs: 1534, outcome: 'done', rows: 1204 },
  ];

  it('lists the queries with their outcome, searches them, and opens one in a tab of its own', async () => {
    fake.queryHistory.mockResolvedValue(entries);
    const store = createStore();
    openConsole(store, 'SELECT keep_me');
    await shown(store);
    const toggle = screen.getByRole('button', { name: /History/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const panel = screen.getByRole('complementary', { name: 'Query history' });
    const items = await within(panel).findAllByTestId('history-entry');
    expect(items[0]).toHaveTextContent('failed: Table ordrs does not exist');
    expect(items[1]).toHaveTextContent('1.5 s · 1,204 rows');
    expect(fake.queryHistory).toHaveBeenLastCalledWith('', 200);

    fireEvent.change(within(panel).getByRole('searchbox', { name: 'Search the query history' }), { target: { value: 'GROUP' } });
    await waitFor(() => expect(fake.queryHistory).toHaveBeenLastCalledWith('GROUP', 200));

    fireEvent.click(items[1]!);
    expect(tabNames()).toEqual(['Query 1', 'Query 2']);
    expect(current(store).text).toBe('SELECT region, count(*) FROM orders GROUP BY 1');
    expect(store.get().consoleTabs[0]!.text).toBe('SELECT keep_me');
  });

  it('shows why the history cannot be read', async () => {
    fake.queryHistory.mockRejectedValue({ code: 'file', message: 'The SQL console’s history cannot be read.', hint: 'Move the file away.' });
    await shown(createStore());
    fireEvent.click(screen.getByRole('button', { name: /History/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Move the file away.');
  });
});
