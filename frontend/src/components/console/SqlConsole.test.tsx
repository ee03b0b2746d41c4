import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore, initialState } from '../../state/store';
import { chartPlan, chartSpec, SqlConsole } from './SqlConsole';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());
const embed = vi.hoisted(() => vi.fn());
vi.mock('vega-embed', () => ({ default: embed }));

beforeEach(() => {
  resetFake();
  embed.mockReset();
  embed.mockResolvedValue({ view: { toImageURL: vi.fn() }, finalize: vi.fn() });
  fake.schemaNames.mockResolvedValue({ tables: [{ name: 'orders', columns: ['region', 'amount'] }] });
});

const result = {
  ref: 'q7',
  columns: [
    { name: 'region', type: 'VARCHAR' },
    { name: 'total', type: 'DOUBLE' },
  ],
  rows: 2,
  kept: 2,
  truncated: false,
  elapsedMs: 3.2,
  page: { offset: 0, rows: [['north', 10.5], ['south', 7]] },
};

function consoleStore(sql: string) {
  const init = initialState();
  return createStore({ ...init, view: { kind: 'console', nonce: 1 }, consoleTabs: [{ ...init.consoleTabs[0]!, text: sql, nonce: 1 }] });
}

describe('SqlConsole', () => {
  it('loads the editor with the SQL sent to it and runs it through runSQL', async () => {
    fake.runConsoleSQL.mockResolvedValue(result);
    renderWithStore(<SqlConsole />, consoleStore('SELECT region, sum(amount) AS total FROM orders GROUP BY 1'));
    const editor = await screen.findByTestId('sql-editor');
    await waitFor(() => expect(editor).toHaveTextContent('SELECT region, sum(amount) AS total FROM orders GROUP BY 1'));
    // Highlighted by CodeMirror's SQL grammar.
    await waitFor(() => expect(editor.querySelector('.tok-keyword')).not.toBeNull());
    await waitFor(() => expect(fake.schemaNames).toHaveBeenCalled());

    fireEvent.click(screen.getByRole('button', { name: /Run/ }));
    await waitFor(() => expect(fake.runConsoleSQL).toHaveBeenCalledWith('tab-1', 'SELECT region, sum(amount) AS total FROM orders GROUP BY 1'));
    expect(await screen.findByText('north')).toBeInTheDocument();
    expect(screen.getByTestId('grid-count')).toHaveTextContent('2 rows · 3 ms');

    // One click charts it: bars of total by region, from one page of rows.
    fake.page.mockResolvedValue(result.page);
    fireEvent.click(screen.getByRole('button', { name: /Chart \(bar\)/ }));
    await waitFor(() => expect(embed).toHaveBeenCalled());
    expect(fake.page).toHaveBeenCalledWith('q7', 0, 1000);
    const spec = embed.mock.calls[0]![1] as { mark: { type: string }; data: { values: unknown[] } };
    expect(spec.mark.type).toBe('bar');
    expect(spec.data.values).toEqual([
      { region: 'north', total: 10.5 },
      { region: 'south', total: 7 },
    ]);
  });

  it('runs on Ctrl+Enter in the editor', async () => {
    fake.runConsoleSQL.mockResolvedValue(result);
    renderWithStore(<SqlConsole />, consoleStore('SELECT 1'));
    const editor = await screen.findByTestId('sql-editor');
    const content = await waitFor(() => editor.querySelector('.cm-content') as HTMLElement);
    await act(async () => {
      fireEvent.keyDown(content, { key: 'Enter', ctrlKey: true });
    });
    await waitFor(() => expect(fake.runConsoleSQL).toHaveBeenCalledWith('tab-1', 'SELECT 1'));
  });

  it('shows a guard refusal with its hint', async () => {
    fake.runConsoleSQL.mockRejectedValue({ code: 'refused', message: 'DROP is not allowed.', hint: 'Only SELECT queries run here.' });
    renderWithStore(<SqlConsole />, consoleStore('DROP TABLE orders'));
    await screen.findByTestId('sql-editor');
    fireEvent.click(screen.getByRole('button', { name: /Run/ }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Refused by the read-only guard');
    expect(alert).toHaveTextContent('Only SELECT queries run here.');
  });
});

describe('chartPlan', () => {
  it.each([
    [[['d', 'DATE'], ['n', 'BIGINT']], { mark: 'line', x: 'd', y: 'n' }],
    [[['c', 'VARCHAR'], ['n', 'DOUBLE']], { mark: 'bar', x: 'c', y: 'n' }],
    [[['x', 'DOUBLE'], ['y', 'DOUBLE']], { mark: 'line', x: 'x', y: 'y' }],
    [[['c', 'VARCHAR']], null],
  ])('%j → %j', (cols, want) => {
    const plan = chartPlan({ columns: cols.map(([name, type]) => ({ name: name!, type: type! })) });
    if (want === null) expect(plan).toBeNull();
    else expect(plan).toMatchObject(want);
  });

  it('sorts bars by value', () => {
    const r = { columns: [{ name: 'c', type: 'VARCHAR' }, { name: 'n', type: 'INTEGER' }] };
    const spec = chartSpec(r, chartPlan(r)!, [['a', 1]]);
    expect(spec.encoding.x).toEqual({ field: 'c', type: 'nominal', sort: '-y' });
  });
});
