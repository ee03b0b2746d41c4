import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import * as api from '../../api';
import type { ColumnFilter, ExportedFile, ResultSummary, ViewedResult } from '../../api';
import { clipboardCell, formatCount, rows as rowsText } from '../../format';
import { useActions } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { Icon } from '../common/Icon';
import { columnFormats, formatCell } from './cellFormat';
import { ColumnPanel } from './ColumnPanel';
import { ariaSort, describeFilters, isEmptyView, nextSort, NO_VIEW, withFilters, type GridView } from './gridView';
import './grid.css';

/** A result held in Go behind ref, as much as the grid needs to page it. */
export interface GridSource {
  ref: string;
  columns: { name: string; type: string }[];
  /** Rows held behind ref (pages end here). */
  kept: number;
  /** Rows the query produced (≥ kept). */
  total: number;
  /** Rows already here (from the display payload): the first page. */
  preview?: unknown[][];
  elapsedMs?: number;
}

export const ROW_HEIGHT = 26;
export const PAGE_SIZE = 200;
/**
 * The tallest the scrolled content gets. Browsers draw in float32 far from
 * the origin: past a few million pixels text lands off its row (at 26 M px
 * the error is 2 px). Taller results scroll through a scaled window instead:
 * each scrolled pixel moves several rows' worth, and the rows are always
 * drawn near the viewport.
 */
export const MAX_SCROLL_PX = 4_000_000;
const OVERSCAN = 8;

interface Cell {
  r: number;
  c: number;
}

/**
 * A virtualized, paged result table: only the visible rows are in the DOM
 * and only their pages are fetched from Go (api.page). Click selects a cell,
 * Shift+click a range; Ctrl/Cmd+C copies it as tab-separated text.
 *
 * A header's name sorts by the column (ascending, descending, none); its
 * funnel opens the column's summary and filter. Sorting and filtering run
 * in Go (api.viewResult), over every row the query produces where the
 * result can be made again, and the bar says when they cover only the
 * rows held.
 */
export function DataGrid({
  source: base,
  height,
  tools,
  fill,
  exportAll,
}: {
  source: GridSource;
  /** Fixed height in px; without it the grid grows with its rows up to 320 px. */
  height?: number;
  /** Extra buttons for the toolbar (chart, open in console). */
  tools?: ReactNode;
  /** Fill the parent's height (full-page views). */
  fill?: boolean;
  /**
   * Exports the whole data behind the grid (a dataset's table, not its
   * preview). Without it Export CSV writes the rows held behind ref, and
   * says so on the button when they are fewer than the query produced.
   */
  exportAll?: () => Promise<ExportedFile | null>;
}) {
  const { notify } = useActions();
  const [view, setView] = useState<GridView>(NO_VIEW);
  const [viewed, setViewed] = useState<{ of: string; view: GridView; source: GridSource; info: ViewedResult } | null>(null);
  const [viewError, setViewError] = useState<string | null>(null);
  const [panel, setPanel] = useState<string | null>(null);
  const [summary, setSummary] = useState<{ ref: string; data?: ResultSummary; error?: string } | null>(null);
  const gridId = useId();

  // A new result starts unsorted and unfiltered.
  useEffect(() => {
    setView(NO_VIEW);
    setViewed(null);
    setViewError(null);
    setPanel(null);
  }, [base]);

  useEffect(() => {
    if (isEmptyView(view)) {
      setViewed(null);
      setViewError(null);
      return;
    }
    let live = true;
    api
      .viewResult(base.ref, view)
      .then((v) => {
        if (!live) return;
        const r = v.result;
        setViewed({ of: base.ref, view, info: v, source: { ref: r.ref, columns: r.columns, kept: r.kept, total: r.rows, preview: r.page.rows, elapsedMs: r.elapsedMs } });
        setViewError(null);
      })
      .catch((err: unknown) => live && setViewError(problemOf(err).message));
    return () => {
      live = false;
    };
  }, [view, base.ref]);

  const current = viewed && viewed.of === base.ref && !isEmptyView(view) ? viewed : null;
  const source = current?.source ?? base;
  const pendingView = !isEmptyView(view) && current?.view !== view && !viewError;

  // The open panel's summary is of the rows shown (kept per result: it does not change).
  const summaries = useRef(new Map<string, ResultSummary>());
  const summaryFor = panel === null ? null : source.ref;
  useEffect(() => {
    if (summaryFor === null) return;
    const known = summaries.current.get(summaryFor);
    if (known) {
      setSummary({ ref: summaryFor, data: known });
      return;
    }
    let live = true;
    setSummary({ ref: summaryFor });
    api
      .summarizeResult(summaryFor)
      .then((data) => {
        summaries.current.set(summaryFor, data);
        if (live) setSummary({ ref: summaryFor, data });
      })
      .catch((err: unknown) => live && setSummary({ ref: summaryFor, error: problemOf(err).message }));
    return () => {
      live = false;
    };
  }, [summaryFor]);
  const scroller = useRef<HTMLDivElement>(null);
  const pages = useRef(new Map<number, unknown[][]>());
  const pending = useRef(new Set<number>());
  const [, setVersion] = useState(0);
  const [failed, setFailed] = useState<string | null>(null);
  const [anchor, setAnchor] = useState<Cell | null>(null);
  const [focus, setFocus] = useState<Cell | null>(null);
  const count = source.kept;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(height ?? 320);

  // A new source starts from its preview.
  useEffect(() => {
    pages.current = new Map();
    pending.current = new Set();
    const pre = source.preview ?? [];
    for (let p = 0; p * PAGE_SIZE < pre.length; p++) {
      const chunk = pre.slice(p * PAGE_SIZE, (p + 1) * PAGE_SIZE);
      if (chunk.length === PAGE_SIZE || (p + 1) * PAGE_SIZE >= source.kept) pages.current.set(p, chunk);
    }
    setFailed(null);
    setAnchor(null);
    setFocus(null);
    setVersion((v) => v + 1);
  }, [source]);

  const fetchPage = useCallback(
    (p: number) => {
      if (pages.current.has(p) || pending.current.has(p) || p * PAGE_SIZE >= source.kept) return;
      pending.current.add(p);
      api
        .page(source.ref, p * PAGE_SIZE, PAGE_SIZE)
        .then((page) => {
          pages.current.set(p, page.rows);
          setVersion((v) => v + 1);
        })
        .catch((err: unknown) => setFailed(problemOf(err).message))
        .finally(() => pending.current.delete(p));
    },
    [source],
  );

  const widths = useMemo(() => source.columns.map(columnWidth), [source.columns]);
  // Formats are decided from the first rows: the preview, else the first page once here.
  const sample = source.preview?.length ? source.preview : pages.current.get(0);
  const formats = useMemo(() => columnFormats(source.columns, sample ?? []), [source.columns, sample]);
  const gutter = Math.max(44, String(count).length * 8 + 18);
  const template = `${gutter}px ${widths.map((w) => `${w}px`).join(' ')}`;
  const innerWidth = gutter + widths.reduce((a, b) => a + b, 0);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setViewport(Math.max(ROW_HEIGHT, el.clientHeight - ROW_HEIGHT));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const win = scrollWindow(count, scrollTop, viewport);
  const first = win.first;
  const last = win.last;
  useEffect(() => {
    for (let p = Math.floor(first / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) fetchPage(p);
  }, [first, last, fetchPage]);

  const scrollToRow = (r: number) => {
    const el = scroller.current;
    if (!el) return;
    if (r < win.topRow) el.scrollTop = scrollTopFor(count, r, viewport);
    else if (r >= win.topRow + Math.floor(viewport / ROW_HEIGHT)) el.scrollTop = scrollTopFor(count, r - Math.floor(viewport / ROW_HEIGHT) + 1, viewport);
  };

  const rowAt = (i: number): unknown[] | undefined =>
    pages.current.get(Math.floor(i / PAGE_SIZE))?.[i % PAGE_SIZE] ?? source.preview?.[i];

  const selected = (r: number, c: number): boolean => {
    if (!anchor || !focus) return false;
    return (
      r >= Math.min(anchor.r, focus.r) &&
      r <= Math.max(anchor.r, focus.r) &&
      c >= Math.min(anchor.c, focus.c) &&
      c <= Math.max(anchor.c, focus.c)
    );
  };

  /** The rows [from, to], fetching the pages not here yet (a copy never writes blanks for them). */
  const rowsFor = async (from: number, to: number): Promise<void> => {
    const missing: number[] = [];
    for (let p = Math.floor(from / PAGE_SIZE); p <= Math.floor(to / PAGE_SIZE); p++) if (!pages.current.has(p)) missing.push(p);
    const got = await Promise.all(missing.map((p) => api.page(source.ref, p * PAGE_SIZE, PAGE_SIZE)));
    got.forEach((page, i) => pages.current.set(missing[i]!, page.rows));
  };

  const copy = async () => {
    if (!anchor || !focus) return;
    try {
      await rowsFor(Math.min(anchor.r, focus.r), Math.max(anchor.r, focus.r));
    } catch (err) {
      notify('error', 'Could not copy: the rows could not be fetched', problemOf(err).message);
      return;
    }
    const lines: string[] = [];
    for (let r = Math.min(anchor.r, focus.r); r <= Math.max(anchor.r, focus.r); r++) {
      const row = rowAt(r);
      const cells: string[] = [];
      for (let c = Math.min(anchor.c, focus.c); c <= Math.max(anchor.c, focus.c); c++) {
        cells.push(row ? clipboardCell(row[c]) : '');
      }
      lines.push(cells.join('\t'));
    }
    const n = lines.length * (Math.abs(anchor.c - focus.c) + 1);
    try {
      await navigator.clipboard.writeText(lines.join('\n'));
      notify('info', n === 1 ? 'Copied the cell' : `Copied ${n} cells`);
    } catch (err) {
      notify('error', 'Could not copy to the clipboard', problemOf(err).message);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'c') {
      e.preventDefault();
      void copy();
      return;
    }
    if (!focus) return;
    const moves: Record<string, [number, number]> = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
    };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    const next = {
      r: Math.min(count - 1, Math.max(0, focus.r + m[0])),
      c: Math.min(source.columns.length - 1, Math.max(0, focus.c + m[1])),
    };
    setFocus(next);
    if (!e.shiftKey) setAnchor(next);
    scrollToRow(next.r);
  };

  const wholeExport = current ? undefined : exportAll;
  const partial = !wholeExport && source.kept < source.total;
  const exportAs = async (format: 'csv' | 'xlsx' | 'parquet') => {
    try {
      if (format === 'csv' && wholeExport) {
        const f = await wholeExport();
        if (f) notify('info', `Saved ${rowsText(f.rows)} to ${f.path}`);
        return;
      }
      const path = format === 'csv' ? await api.exportCSV(source.ref) : await api.exportResult(source.ref, format);
      if (path) notify('info', partial ? `Saved ${exportedRows(source)} to ${path}` : `Saved ${rowsText(source.kept)} to ${path}`);
    } catch (err) {
      const p = problemOf(err);
      notify('error', `Could not export: ${p.message}`, p.hint);
    }
  };

  const bodyHeight = height ?? Math.min(320, Math.max(count, 1) * ROW_HEIGHT + 2);
  return (
    <div className={fill ? 'grid grid--fill' : 'grid'}>
      <div className="grid__bar">
        <span className="grid__count" data-testid="grid-count">
          {rowsText(source.total)}
          {current && current.view.filters.length > 0 && ` of ${formatCount(current.info.heldOnly ? base.kept : current.info.of)}`}
          {source.kept < source.total && ` · first ${formatCount(source.kept)} kept`}
          {!current && source.elapsedMs !== undefined && ` · ${Math.round(source.elapsedMs)} ms`}
        </span>
        <span className="grid__tools">
          {tools}
          <button type="button" className="chip" disabled={!anchor} onClick={() => void copy()} title="Copy the selected cells (Ctrl+C)">
            <Icon name="copy" size={13} /> Copy
          </button>
          <button
            type="button"
            className="chip"
            onClick={() => void exportAs('csv')}
            title={
              wholeExport
                ? `Export all ${rowsText(source.total)} as CSV`
                : partial
                  ? `Only the ${formatCount(source.kept)} rows held are written; the query produced ${formatCount(source.total)}. Narrow or aggregate the query to export them all.`
                  : `Export the ${rowsText(source.total)} as CSV`
            }
          >
            <Icon name="download" size={13} /> Export CSV{partial && ` (${formatCount(source.kept)} of ${formatCount(source.total)})`}
          </button>
          <button type="button" className="chip" onClick={() => void exportAs('xlsx')} title="Export as an Excel workbook">
            XLSX
          </button>
          <button type="button" className="chip" onClick={() => void exportAs('parquet')} title="Export as a Parquet file">
            Parquet
          </button>
        </span>
      </div>
      {(!isEmptyView(view) || viewError) && (
        <div className="grid__view" data-testid="grid-view" aria-live="polite">
          <span>
            {viewError
              ? `Could not sort or filter: ${viewError}`
              : pendingView
                ? 'Sorting and filtering…'
                : viewWords(view, current?.info, base)}
          </span>
          <button type="button" className="chip" onClick={() => setView(NO_VIEW)}>
            <Icon name="x" size={12} /> Clear sort and filters
          </button>
        </div>
      )}
      {panel !== null && columnAt(base, panel) && (
        <ColumnPanel
          key={panel}
          id={`${gridId}-panel`}
          column={columnAt(base, panel)!}
          numeric={isNumericType(columnAt(base, panel)!.type)}
          filters={view.filters.filter((f) => f.column === panel)}
          summary={summary?.ref === source.ref ? summary.data?.columns?.find((c) => c.column === panel) : undefined}
          summaryError={summary?.ref === source.ref ? summary.error : undefined}
          scope={summary?.ref === source.ref && summary.data ? { rows: summary.data.rows, total: current?.info.heldOnly ? base.total : summary.data.total, partial: summary.data.partial || !!current?.info.heldOnly } : undefined}
          onApply={(fs: ColumnFilter[]) => setView((v) => withFilters(v, panel, fs))}
          onClose={() => {
            const name = panel;
            setPanel(null);
            document.getElementById(`${gridId}-col-${columnIndex(base, name)}`)?.focus();
          }}
        />
      )}
      <div
        ref={scroller}
        className="grid__scroll"
        style={fill ? undefined : { height: bodyHeight + ROW_HEIGHT }}
        tabIndex={0}
        role="grid"
        aria-rowcount={count + 1}
        aria-colcount={source.columns.length}
        onKeyDown={onKey}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        data-testid="grid"
      >
        <div style={{ width: innerWidth, minWidth: '100%' }}>
          <div className="grid__head" role="row" style={{ gridTemplateColumns: template }}>
            <span className="grid__gutter" />
            {source.columns.map((c, i) => {
              const sort = ariaSort(view, c.name);
              const filtered = view.filters.some((f) => f.column === c.name);
              return (
                <span key={c.name} className="grid__th" role="columnheader" aria-sort={sort} title={`${c.name} · ${c.type}`}>
                  <button
                    type="button"
                    className="grid__sort"
                    onClick={() => setView((v) => nextSort(v, c.name))}
                    aria-label={`${c.name}, ${sortWords[sort]}: sort ${sort === 'none' ? 'ascending' : sort === 'ascending' ? 'descending' : 'off'}`}
                  >
                    <span className="grid__th-name">{c.name}</span>
                    <span className="grid__th-arrow" aria-hidden="true">
                      {sort === 'ascending' ? '▲' : sort === 'descending' ? '▼' : ''}
                    </span>
                  </button>
                  <span className="grid__th-type">{shortType(c.type)}</span>
                  <button
                    type="button"
                    id={`${gridId}-col-${i}`}
                    className={filtered ? 'grid__colbtn grid__colbtn--on' : 'grid__colbtn'}
                    aria-label={`${c.name}: summary and filter${filtered ? ' (filtered)' : ''}`}
                    aria-haspopup="dialog"
                    aria-expanded={panel === c.name}
                    aria-controls={panel === c.name ? `${gridId}-panel` : undefined}
                    title={`Summary and filter of ${c.name}`}
                    onClick={() => setPanel((p) => (p === c.name ? null : c.name))}
                  >
                    <Icon name="filter" size={12} />
                  </button>
                </span>
              );
            })}
          </div>
          {/* The visible rows, stacked in one block placed at the viewport. */}
          <div style={{ height: win.contentHeight, position: 'relative' }}>
            <div className="grid__window" style={{ top: win.blockTop }}>
            {rowIndexes(first, last).map((index) => {
              const row = rowAt(index);
              const it = { index };
              return (
                <div
                  key={index}
                  role="row"
                  aria-rowindex={index + 2}
                  className={it.index % 2 ? 'grid__row grid__row--odd' : 'grid__row'}
                  style={{ gridTemplateColumns: template, height: ROW_HEIGHT }}
                >
                  <span className="grid__gutter">{it.index + 1}</span>
                  {source.columns.map((col, c) => {
                    const v = row?.[c];
                    return (
                      <span
                        key={col.name}
                        role="gridcell"
                        className={cellClass(row === undefined, v, col.type, selected(it.index, c))}
                        onMouseDown={(e) => {
                          const cell = { r: it.index, c };
                          if (e.shiftKey && anchor) setFocus(cell);
                          else {
                            setAnchor(cell);
                            setFocus(cell);
                          }
                        }}
                        title={row && typeof v === 'string' && v.length > 30 ? v : undefined}
                      >
                        {row === undefined ? '' : formatCell(v, formats[c]!)}
                      </span>
                    );
                  })}
                </div>
              );
            })}
            </div>
          </div>
        </div>
      </div>
      {failed && <div className="grid__note grid__note--error">Could not fetch rows: {failed}</div>}
    </div>
  );
}

const sortWords = { ascending: 'sorted ascending', descending: 'sorted descending', none: 'not sorted' } as const;

function columnAt(s: GridSource, name: string) {
  return s.columns.find((c) => c.name === name);
}

function columnIndex(s: GridSource, name: string): number {
  return s.columns.findIndex((c) => c.name === name);
}

/**
 * What the view did, in words: "Sorted by amount, descending · amount ≥ 10 —
 * over all 2,059 rows", or, when only the held rows could be viewed, that
 * it covers those only.
 */
export function viewWords(v: GridView, info: ViewedResult | undefined, base: Pick<GridSource, 'kept' | 'total'>): string {
  const parts: string[] = [];
  for (const s of v.sort) parts.push(`Sorted by ${s.column}, ${s.desc ? 'descending' : 'ascending'}`);
  if (v.filters.length) parts.push(`Filtered: ${describeFilters(v.filters)}`);
  let scope = '';
  if (info?.heldOnly) scope = ` — only the ${formatCount(base.kept)} rows held, not all ${formatCount(base.total)} the query produced`;
  else if (info) scope = ` — over all ${rowsText(info.of)}`;
  return parts.join(' · ') + scope;
}

/** "1,000 of 2,059 rows": what an export of held rows writes. */
export function exportedRows(s: Pick<GridSource, 'kept' | 'total'>): string {
  return `${formatCount(s.kept)} of ${rowsText(s.total)}`;
}

/** Where the rows are drawn for a scroll position. */
export interface ScrollWindow {
  /** Height of the scrolled content (≤ MAX_SCROLL_PX). */
  contentHeight: number;
  /** The row at the top of the viewport. */
  topRow: number;
  /** Rows drawn, overscan included. */
  first: number;
  last: number;
  /** Offset of row `first` in the content. */
  blockTop: number;
}

/**
 * scrollWindow maps a scroll position to the rows to draw. Up to
 * MAX_SCROLL_PX of rows scroll one pixel per pixel; beyond, the scroll range
 * is scaled onto the rows and the drawn block follows the viewport.
 */
export function scrollWindow(count: number, scrollTop: number, viewport: number): ScrollWindow {
  const total = count * ROW_HEIGHT;
  const content = Math.min(total, MAX_SCROLL_PX);
  const maxScroll = Math.max(0, content - viewport);
  const top = Math.min(Math.max(0, scrollTop), maxScroll);
  const virtualTop = total === content || maxScroll === 0 ? top : (top / maxScroll) * (total - viewport);
  const topRow = Math.min(Math.max(0, count - 1), Math.floor(virtualTop / ROW_HEIGHT));
  const first = Math.max(0, topRow - OVERSCAN);
  const last = Math.min(count - 1, topRow + Math.ceil(viewport / ROW_HEIGHT) + OVERSCAN);
  const blockTop = top - (virtualTop - first * ROW_HEIGHT);
  return { contentHeight: content, topRow, first, last, blockTop };
}

/** scrollTopFor is the scroll position that puts row at the top. */
export function scrollTopFor(count: number, row: number, viewport: number): number {
  const total = count * ROW_HEIGHT;
  const content = Math.min(total, MAX_SCROLL_PX);
  if (total === content) return row * ROW_HEIGHT;
  return ((row * ROW_HEIGHT) / (total - viewport)) * (content - viewport);
}

function rowIndexes(first: number, last: number): number[] {
  const out: number[] = [];
  for (let i = first; i <= last; i++) out.push(i);
  return out;
}

const numeric = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|REAL|DECIMAL)/i;

/** isNumericType says whether a DuckDB type holds numbers. */
export function isNumericType(t: string): boolean {
  return numeric.test(t);
}

/** isTimeType says whether a DuckDB type holds dates or times. */
export function isTimeType(t: string): boolean {
  return /^(DATE|TIME|TIMESTAMP)/i.test(t);
}

function columnWidth(c: { name: string; type: string }): number {
  // Room for the name, the sort arrow, the type label and the filter button.
  const byName = Math.ceil(c.name.length * 7.6 + shortType(c.type).length * 6.2 + 36 + 34);
  const byType = isNumericType(c.type) ? 110 : isTimeType(c.type) ? 170 : 180;
  return Math.min(320, Math.max(90, byName, byType));
}

function shortType(t: string): string {
  return t.replace(/\(.*\)/, '').replace('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ').toLowerCase();
}

function cellClass(loading: boolean, v: unknown, type: string, sel: boolean): string {
  let cls = 'grid__td';
  if (loading) cls += ' grid__td--loading';
  else if (v === null || v === undefined) cls += ' grid__td--null';
  else if (isNumericType(type)) cls += ' grid__td--num';
  if (sel) cls += ' grid__td--sel';
  return cls;
}
