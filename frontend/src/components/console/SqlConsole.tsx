import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import * as api from '../../api';
import type { QueryResult } from '../../api';
import { useActions } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { useStore } from '../../state/store';
import { ChartView } from '../chat/ChartView';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import { DataGrid, isNumericType, isTimeType, type GridSource } from '../grid/DataGrid';
import { sqlErrorPosition } from './errorPosition';
import './console.css';

const SqlEditor = lazy(() => import('./SqlEditor'));

/**
 * The SQL console: an editor with completion of table and column names,
 * Run (Ctrl/Cmd+Enter) through the same guard as the agent, the result as
 * a paged table and a one-click chart.
 */
export function SqlConsole() {
  const a = useActions();
  const text = useStore((s) => s.consoleText);
  const result = useStore((s) => s.consoleResult);
  const error = useStore((s) => s.consoleError);
  const view = useStore((s) => s.view);
  const datasets = useStore((s) => s.datasets);
  const nonce = view.kind === 'console' ? view.nonce : 0;
  const [schema, setSchema] = useState<Record<string, string[]>>({});
  const [running, setRunning] = useState(false);
  const [stopped, setStopped] = useState(false);
  const [ran, setRan] = useState('');
  const started = useRef(0);
  const [chart, setChart] = useState<{ spec: unknown; title: string } | null>(null);
  const [chartError, setChartError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .schemaNames()
      .then((s) => {
        if (!live) return;
        const m: Record<string, string[]> = {};
        for (const t of s.tables) m[t.name] = t.columns;
        setSchema(m);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [datasets]);

  const run = async () => {
    const sql = a.store.get().consoleText.trim();
    if (sql === '' || running) return;
    setRunning(true);
    setStopped(false);
    setChartError(null);
    setRan(sql);
    started.current = Date.now();
    try {
      const how = await a.runConsole(sql);
      setStopped(how === 'canceled');
      if (how !== 'canceled') setChart(null);
    } finally {
      setRunning(false);
    }
  };

  const stop = () => {
    if (running) void a.cancelConsole();
  };

  // Esc stops a running query from anywhere in the window.
  useEffect(() => {
    if (!running) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        void a.cancelConsole();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, a]);

  const located = useMemo(() => (error?.code === 'sql' ? sqlErrorPosition(error.hint ?? '', ran) : null), [error, ran]);
  const shownError = error && located ? { ...error, hint: located.hint } : error;


  const source = useMemo<GridSource | null>(
    () =>
      result
        ? {
            ref: result.ref,
            columns: result.columns,
            kept: result.kept,
            total: result.rows,
            preview: result.page.rows,
            elapsedMs: result.elapsedMs,
          }
        : null,
    [result],
  );
  const plan = result ? chartPlan(result) : null;
  const stale = source !== null && (running || stopped);

  const drawChart = async () => {
    if (!result || !plan) return;
    try {
      const page = await api.page(result.ref, 0, 1000);
      setChart({ spec: chartSpec(result, plan, page.rows), title: plan.title });
      setChartError(null);
    } catch (err) {
      setChartError(problemOf(err).message);
    }
  };

  return (
    <div className="console">
      <header className="view-head">
        <h1 className="view-head__title">SQL console</h1>
        <span className="view-head__sub">Read-only DuckDB SQL over your datasets, through the same guard as the agent.</span>
        <span className="view-head__spacer" />
        {running ? (
          <button type="button" className="button button--stop" onClick={stop} title="Stop the running query (Esc)">
            <span className="spinner spinner--small" /> Stop <kbd>Esc</kbd>
          </button>
        ) : (
          <button type="button" className="button button--primary" onClick={() => void run()} disabled={text.trim() === ''}>
            <Icon name="play" size={13} /> Run <kbd>Ctrl+Enter</kbd>
          </button>
        )}
      </header>
      <div className="console__editor">
        <Suspense fallback={<div className="sql-editor sql-editor--loading">Loading the editor…</div>}>
          <SqlEditor
            value={text}
            nonce={nonce}
            schema={schema}
            onChange={(t) => a.setConsoleText(t)}
            onRun={() => void run()}
            errorAt={located?.position ?? null}
          />
        </Suspense>
      </div>
      <div className="console__result">
        {shownError && (
          <ErrorNote
            title={
              shownError.code === 'refused'
                ? 'Refused by the read-only guard'
                : located?.position
                  ? `The query failed at line ${located.position.line}, column ${located.position.column}`
                  : 'The query failed'
            }
            problem={shownError}
          />
        )}
        {running && (
          <div className="console__status" role="status" data-testid="console-running">
            <span className="spinner spinner--small" /> Running… <button type="button" className="chip" onClick={stop}>Stop</button>
            {source && <span className="console__status-note">The table below is the previous query's result.</span>}
          </div>
        )}
        {!running && stopped && (
          <div className="console__status" role="status" data-testid="console-stopped">
            Stopped after {((Date.now() - started.current) / 1000).toFixed(1)} s.
            {source && <span className="console__status-note">The table below is the previous query's result.</span>}
          </div>
        )}
        {source && (
          <div className={stale ? 'console__grid console__grid--stale' : 'console__grid'} data-testid={stale ? 'console-previous' : undefined}>
          <DataGrid
            source={source}
            fill={chart === null}
            tools={
              plan && (
                <button
                  type="button"
                  className="chip"
                  onClick={() => (chart ? setChart(null) : void drawChart())}
                  title={plan.title}
                >
                  <Icon name="chart" size={13} /> {chart ? 'Hide chart' : `Chart (${plan.mark})`}
                </button>
              )
            }
          />
          </div>
        )}
        {chartError && <div className="grid__note grid__note--error">Could not draw the chart: {chartError}</div>}
        {chart && (
          <div className="console__chart">
            <ChartView spec={chart.spec} title={chart.title} />
          </div>
        )}
        {!source && !error && (
          <div className="console__empty">
            {Object.keys(schema).length === 0 ? (
              'Open a file to have tables to query.'
            ) : (
              <>
                Tables:{' '}
                {Object.keys(schema).map((t) => (
                  <button
                    type="button"
                    key={t}
                    className="chip"
                    onClick={() => a.openConsole(`SELECT *\nFROM ${t}\nLIMIT 100`)}
                  >
                    {t}
                  </button>
                ))}
              </>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

/** Which columns a one-click chart uses, and how. */
export interface ChartPlan {
  mark: 'bar' | 'line';
  x: string;
  xType: 'nominal' | 'temporal' | 'quantitative';
  y: string;
  title: string;
}

/**
 * chartPlan picks a chart for a result by its column types: a line over a
 * date or time column, else bars over a text column, of the first number
 * column. Null when the result has no number to plot.
 */
export function chartPlan(r: Pick<QueryResult, 'columns'>): ChartPlan | null {
  const cols = r.columns;
  const time = cols.find((c) => isTimeType(c.type));
  const nums = cols.filter((c) => isNumericType(c.type));
  const text = cols.find((c) => !isNumericType(c.type) && !isTimeType(c.type));
  const x = time ?? text ?? (nums.length > 1 ? nums[0] : undefined);
  const y = nums.find((c) => c !== x);
  if (!x || !y) return null;
  const mark = time ? 'line' : x === text ? 'bar' : 'line';
  const xType = time ? 'temporal' : x === text ? 'nominal' : 'quantitative';
  return { mark, x: x.name, xType, y: y.name, title: `${y.name} by ${x.name}` };
}

/** chartSpec makes the Vega-Lite spec of plan over rows. */
export function chartSpec(r: Pick<QueryResult, 'columns'>, plan: ChartPlan, rows: unknown[][]) {
  const names = r.columns.map((c) => c.name);
  const values = rows.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i]])));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    mark: { type: plan.mark, tooltip: true, ...(plan.mark === 'line' ? { point: values.length <= 60 } : {}) },
    height: 280,
    encoding: {
      x: { field: plan.x, type: plan.xType, ...(plan.xType === 'nominal' ? { sort: '-y' } : {}) },
      y: { field: plan.y, type: 'quantitative' },
    },
  };
}
