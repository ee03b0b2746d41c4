import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResultView, ViewedResult } from '../../api';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { DataGrid, type GridSource } from './DataGrid';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const columns = [
  { name: 'city', type: 'VARCHAR' },
  { name: 'amount', type: 'DOUBLE' },
];
const data: unknown[][] = [
  ['Oslo', 12.5],
  ['Lima', null],
  ['Pune', 40],
  ['Kyiv', 7.25],
];
const base: GridSource = { ref: 'r_base', columns, kept: 4, total: 4, preview: data };

/** A stand-in for Go's view: it sorts and filters the four rows (Go's own is tested in Go). */
function viewOf(view: ResultView, heldOnly = false): ViewedResult {
  let rows = data.filter((r) =>
    (view.filters ?? []).every((f) => {
      const v = r[f.column === 'city' ? 0 : 1];
      if (v === null) return false;
      if (f.op === 'contains') return String(v).toLowerCase().includes(f.value.toLowerCase());
      return f.op === '>=' ? (v as number) >= Number(f.value) : (v as number) <= Number(f.value);
    }),
  );
  const s = view.sort?.[0];
  if (s) {
    const i = s.column === 'city' ? 0 : 1;
    rows = [...rows].sort((a, b) => {
      if (a[i] === null) return 1;
      if (b[i] === null) return -1;
      const d = (a[i] as number | string) < (b[i] as number | string) ? -1 : 1;
      return s.desc ? -d : d;
    });
  }
  return {
    result: { ref: `r_view${fake.viewResult.mock.calls.length}`, columns, rows: rows.length, kept: rows.length, truncated: false, elapsedMs: 1, page: { offset: 0, rows } },
    of: heldOnly ? 4 : 4,
    heldOnly,
    fromQuery: false,
  };
}

const cities = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((r) => within(r).getAllByRole('gridcell')[0]!.textContent);

beforeEach(() => {
  resetFake();
  fake.viewResult.mockImplementation(async (_ref, view) => viewOf(view));
  fake.summarizeResult.mockImplementation(async () => ({
    rows: 4,
    total: 4,
    partial: false,
    columns: [
      { column: 'city', count: 4, nulls: 0, distinct: 4, min: null, max: null, mean: null },
      { column: 'amount', count: 3, nulls: 1, distinct: 3, min: 7.25, max: 40, mean: 19.9167 },
    ],
  }));
});

describe('DataGrid sorting and filtering', () => {
  it('sorts by a header click: ascending, descending, then as the query gave them, with aria-sort', async () => {
    renderWithStore(<DataGrid source={base} />);
    const header = () => screen.getAllByRole('columnheader')[1]!;
    expect(header()).toHaveAttribute('aria-sort', 'none');
    expect(cities()).toEqual(['Oslo', 'Lima', 'Pune', 'Kyiv']);

    await act(async () => fireEvent.click(within(header()).getByRole('button', { name: /^amount, not sorted/ })));
    expect(fake.viewResult).toHaveBeenLastCalledWith('r_base', { sort: [{ column: 'amount', desc: false }], filters: [] });
    await waitFor(() => expect(cities()).toEqual(['Kyiv', 'Oslo', 'Pune', 'Lima']));
    expect(header()).toHaveAttribute('aria-sort', 'ascending');
    expect(screen.getByTestId('grid-view')).toHaveTextContent('Sorted by amount, ascending — over all 4 rows');

    await act(async () => fireEvent.click(within(header()).getByRole('button', { name: /^amount, sorted ascending/ })));
    await waitFor(() => expect(cities()).toEqual(['Pune', 'Oslo', 'Kyiv', 'Lima']));
    expect(header()).toHaveAttribute('aria-sort', 'descending');

    const calls = fake.viewResult.mock.calls.length;
    await act(async () => fireEvent.click(within(header()).getByRole('button', { name: /^amount, sorted descending/ })));
    await waitFor(() => expect(cities()).toEqual(['Oslo', 'Lima', 'Pune', 'Kyiv']));
    expect(header()).toHaveAttribute('aria-sort', 'none');
    expect(fake.viewResult.mock.calls.length).toBe(calls); // unsorted is the result itself
    expect(screen.queryByTestId('grid-view')).toBeNull();
  });

  it('filters a number range from the column panel and shows the column summary', async () => {
    renderWithStore(<DataGrid source={base} />);
    const funnel = screen.getByRole('button', { name: 'amount: summary and filter' });
    await act(async () => fireEvent.click(funnel));
    const panel = await screen.findByRole('dialog', { name: 'amount: summary and filter' });
    expect(funnel).toHaveAttribute('aria-expanded', 'true');
    const summary = within(panel).getByTestId('column-summary');
    await waitFor(() => expect(summary).toHaveTextContent('Values3NULL1Distinct3Min7.25Max40Mean19.9167'));
    expect(fake.summarizeResult).toHaveBeenCalledWith('r_base');
    expect(panel).toHaveTextContent('Over all 4 rows shown.');
    // The first field has focus.
    expect(within(panel).getByRole('textbox', { name: 'Contains' })).toHaveFocus();

    const atLeast = within(panel).getByRole('textbox', { name: 'At least' });
    fireEvent.change(atLeast, { target: { value: 'ten' } });
    await act(async () => fireEvent.submit(atLeast.closest('form')!));
    expect(within(panel).getByRole('alert')).toHaveTextContent('“ten” is not a number');
    expect(fake.viewResult).not.toHaveBeenCalled();

    fireEvent.change(atLeast, { target: { value: '10' } });
    await act(async () => fireEvent.submit(atLeast.closest('form')!));
    expect(fake.viewResult).toHaveBeenLastCalledWith('r_base', { sort: [], filters: [{ column: 'amount', op: '>=', value: '10' }] });
    await waitFor(() => expect(cities()).toEqual(['Oslo', 'Pune']));
    expect(screen.getByTestId('grid-count')).toHaveTextContent('2 rows of 4');
    expect(screen.getByTestId('grid-view')).toHaveTextContent('Filtered: amount ≥ 10');
    expect(funnel).toHaveAccessibleName('amount: summary and filter (filtered)');

    // Esc closes the panel and gives the focus back to its button.
    await act(async () => fireEvent.keyDown(atLeast, { key: 'Escape' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('button', { name: /amount: summary and filter/ })).toHaveFocus();

    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Clear sort and filters/ })));
    await waitFor(() => expect(cities()).toEqual(['Oslo', 'Lima', 'Pune', 'Kyiv']));
  });

  it('says when only the rows held were sorted', async () => {
    fake.viewResult.mockImplementation(async (_ref, view) => ({ ...viewOf(view, true), of: 2059 }));
    renderWithStore(<DataGrid source={{ ...base, kept: 4, total: 2059 }} />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^city, not sorted/ })));
    await waitFor(() => expect(screen.getByTestId('grid-view')).toHaveTextContent('Sorted by city, ascending — only the 4 rows held, not all 2,059 the query produced'));
  });

  it('shows why a view failed and keeps the rows', async () => {
    fake.viewResult.mockRejectedValue(new Error('The result r_base is no longer held: run its query again'));
    renderWithStore(<DataGrid source={base} />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /^city, not sorted/ })));
    await waitFor(() => expect(screen.getByTestId('grid-view')).toHaveTextContent('Could not sort or filter: The result r_base is no longer held'));
    expect(cities()).toEqual(['Oslo', 'Lima', 'Pune', 'Kyiv']);
  });
});
