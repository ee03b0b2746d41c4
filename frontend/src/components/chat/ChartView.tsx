import { useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Result } from 'vega-embed';
import type { Config } from 'vega-lite';
import * as api from '../../api';
import type { ChartFormat } from '../../api';
import { useColorScheme } from '../../hooks/useColorScheme';
import { notify } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { StoreContext } from '../../state/store';
import { Icon } from '../common/Icon';
import { embedOptions, safeSpec } from './chartSafety';
import './chart.css';

let vega: Promise<typeof import('vega-embed')> | null = null;

/** loadVega fetches vega-embed (with vega and vega-lite) on first use. */
export function loadVega() {
  vega ??= import('vega-embed');
  return vega;
}

/**
 * A Vega-Lite chart drawn by vega-embed, sized to its container, with
 * tooltips on its marks, PNG and SVG export, and its data as a table on
 * demand (the chart's text alternative). Screen readers hear its title. spec
 * has its data inlined; it is drawn with the options of chartSafety.ts,
 * which load nothing from any address.
 */
export function ChartView({
  spec,
  title,
  actions,
}: {
  spec: unknown;
  title?: string | undefined;
  /** More buttons for the chart's bar (the answer's Edit chart). */
  actions?: ReactNode;
}) {
  const name = useMemo(() => chartName(spec, title), [spec, title]);
  const data = useMemo(() => chartData(spec), [spec]);
  const [showData, setShowData] = useState(false);
  const tableId = useId();
  const el = useRef<HTMLDivElement>(null);
  const view = useRef<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const [saving, setSaving] = useState(false);
  const scheme = useColorScheme();
  const store = useContext(StoreContext);

  useEffect(() => {
    let live = true;
    let result: Result | null = null;
    setError(null);
    loadVega()
      .then(async (m) => {
        if (!live || el.current === null) return;
        const parsed: unknown = typeof spec === 'string' ? JSON.parse(spec) : spec;
        // The spec is the model's: it gets no say in how it is embedded.
        const s = safeSpec(parsed as Record<string, unknown>);
        // Single views fill the column; composed ones keep their own layout.
        if (!['facet', 'hconcat', 'vconcat', 'concat', 'repeat'].some((k) => k in s)) s['width'] = 'container';
        // What a screen reader says for the chart (Vega's default: "Vega visualization").
        if (typeof s['description'] !== 'string' || s['description'] === '') s['description'] = name;
        // Timed for the render benchmark (e2e/perf.spec.ts): parse, dataflow and draw.
        const start = performance.now();
        const rows = dataRows(s);
        // SVG is crisp; a canvas draws thousands of marks far faster.
        const renderer = rows > 2000 ? 'canvas' : 'svg';
        // A canvas has no ARIA tree: leave out the per-mark descriptions
        // Vega-Lite would otherwise compute for every point (with
        // interpreted expressions, the larger part of the draw).
        const config = renderer === 'canvas' ? { ...chartConfig(scheme), aria: false } : chartConfig(scheme);
        result = await m.default(el.current, s as never, embedOptions({ renderer, config }));
        const end = performance.now();
        performance.measure('loupe:chart-render', { start, end, detail: { rows } });
        // The app's log keeps the time too (make smoke reads it from the
        // window); a failure to log is no reason to bother the user.
        api.chartRendered(rows, renderer, end - start).catch(() => undefined);
        if (!live) {
          result.finalize();
          return;
        }
        view.current = result;
        setReady(true);
      })
      .catch((err: unknown) => {
        if (live) setError(err instanceof Error ? err.message : String(err));
      });
    return () => {
      live = false;
      result?.finalize();
      view.current = null;
    };
  }, [spec, scheme, name]);

  // In the window a browser download goes nowhere: Go writes the image
  // where the native save dialog says. In a browser it is downloaded.
  const save = async (format: ChartFormat) => {
    const v = view.current?.view;
    if (!v) return;
    if (!api.isDesktop()) {
      const url = await v.toImageURL(format, format === 'png' ? 2 : 1);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${fileName(title)}.${format}`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      return;
    }
    setSaving(true);
    try {
      const data = format === 'svg' ? await v.toSVG() : await v.toImageURL('png', 2);
      const path = await api.saveChart(title ?? '', format, data);
      if (path && store) notify(store, 'info', `Saved the chart to ${path}`);
    } catch (err) {
      const p = problemOf(err);
      if (store) notify(store, 'error', `Could not save the chart: ${p.message}`, p.hint);
      else console.error('loupe: save the chart', err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <figure className="chart" aria-label={name}>
      {error ? (
        <div className="chart__error">This chart could not be drawn: {error}</div>
      ) : (
        <div className="chart__canvas" ref={el} data-testid="chart" />
      )}
      <figcaption className="chart__bar">
        {/* The spec draws its own title; a caption would repeat it. */}
        <span className="chart__title">{title && !specHasTitle(spec) ? title : ''}</span>
        <span className="chart__actions">
          {actions}
          {data && (
            <button type="button" className="chip" aria-expanded={showData} aria-controls={tableId} onClick={() => setShowData((v) => !v)}>
              <Icon name="table" size={13} /> {showData ? 'Hide data' : 'Data table'}
            </button>
          )}
          <button type="button" className="chip" disabled={!ready || saving} onClick={() => void save('png')}>
            <Icon name="download" size={13} /> PNG
          </button>
          <button type="button" className="chip" disabled={!ready || saving} onClick={() => void save('svg')}>
            <Icon name="download" size={13} /> SVG
          </button>
        </span>
      </figcaption>
      {data && showData && <ChartTable id={tableId} name={name} data={data} />}
    </figure>
  );
}

/** How many of a chart's rows its data table shows. */
const TABLE_ROWS = 200;

/** The chart's data as a table: its text alternative. */
function ChartTable({ id, name, data }: { id: string; name: string; data: ChartData }) {
  return (
    <div className="chart__table" id={id} tabIndex={0} role="region" aria-label={`Data of ${name}`}>
      <table>
        <caption>
          {name}
          {data.rows.length > TABLE_ROWS ? ` (first ${TABLE_ROWS} of ${data.rows.length.toLocaleString()} rows)` : ''}
        </caption>
        <thead>
          <tr>
            {data.columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.rows.slice(0, TABLE_ROWS).map((r, i) => (
            <tr key={i}>
              {data.columns.map((c) => (
                <td key={c} className={typeof r[c] === 'number' ? 'num' : undefined}>
                  {cell(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return v.toLocaleString(undefined, { maximumFractionDigits: 6 });
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export interface ChartData {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** chartData is the rows inlined in a spec (data.values), with their columns; null when it has none. */
export function chartData(spec: unknown): ChartData | null {
  let s: unknown = spec;
  try {
    if (typeof spec === 'string') s = JSON.parse(spec);
  } catch {
    return null;
  }
  const values = (s as { data?: { values?: unknown } } | null)?.data?.values;
  if (!Array.isArray(values) || values.length === 0) return null;
  const rows = values.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
  const columns: string[] = [];
  for (const r of rows.slice(0, 50)) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  return columns.length > 0 ? { columns, rows } : null;
}

/** chartName is what a chart is called: the given title, else the spec's, else its description. */
export function chartName(spec: unknown, title: string | undefined): string {
  if (title) return title;
  try {
    const s = (typeof spec === 'string' ? JSON.parse(spec) : spec) as { title?: unknown; description?: unknown } | null;
    const t = s?.title;
    if (typeof t === 'string' && t !== '') return t;
    if (t && typeof t === 'object' && typeof (t as { text?: unknown }).text === 'string') return (t as { text: string }).text;
    if (typeof s?.description === 'string' && s.description !== '') return s.description;
  } catch {
    // not JSON: no name in it
  }
  return 'Chart';
}

function specHasTitle(spec: unknown): boolean {
  try {
    const s: unknown = typeof spec === 'string' ? JSON.parse(spec) : spec;
    return typeof s === 'object' && s !== null && 'title' in s && Boolean((s as { title: unknown }).title);
  } catch {
    return false;
  }
}

function dataRows(spec: Record<string, unknown>): number {
  const data = spec['data'] as { values?: unknown[] } | undefined;
  return Array.isArray(data?.values) ? data.values.length : 0;
}

function fileName(title: string | undefined): string {
  const base = (title ?? 'chart').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return base === '' ? 'chart' : base.slice(0, 60);
}

/** Vega config matching the app's colours. */
export function chartConfig(scheme: 'light' | 'dark'): Config {
  const dark = scheme === 'dark';
  const text = dark ? '#c9cfdb' : '#3a4150';
  const grid = dark ? '#2a303b' : '#e6e9ef';
  return {
    background: 'transparent',
    font: 'system-ui, -apple-system, Segoe UI, Cantarell, Noto Sans, sans-serif',
    view: { stroke: 'transparent' },
    axis: {
      labelColor: text,
      titleColor: text,
      domainColor: grid,
      gridColor: grid,
      tickColor: grid,
      labelFontSize: 11,
      titleFontSize: 12,
      titleFontWeight: 600 as const,
    },
    legend: { labelColor: text, titleColor: text },
    title: { color: dark ? '#e8ebf1' : '#161a22', fontSize: 14, fontWeight: 600 as const, anchor: 'start' as const },
    range: {
      category: dark
        ? ['#7c95ff', '#f6a04d', '#4fc4a0', '#f07178', '#c792ea', '#e6c07b', '#56b6c2', '#a9b1c2']
        : ['#3b5bdb', '#f08c00', '#2b8a3e', '#e03131', '#9c36b5', '#c9a227', '#1098ad', '#5c677d'],
    },
    // Every mark tells its values on hover (vega-embed's tooltip handler).
    mark: { color: dark ? '#7c95ff' : '#3b5bdb', tooltip: true },
  };
}
