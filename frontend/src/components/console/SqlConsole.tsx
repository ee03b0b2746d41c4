import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import * as api from '../../api';
import type { QueryResult } from '../../api';
import { useActions } from '../../state/actions';
import { problemOf } from '../../state/problem';
import { useStore, type ConsoleTab } from '../../state/store';
import { ChartView } from '../chat/ChartView';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import { DataGrid, isNumericType, isTimeType, type GridSource } from '../grid/DataGrid';
import { ConsoleTabs } from './ConsoleTabs';
import { sqlErrorPosition } from './errorPosition';
import { QueryHistory } from './QueryHistory';
import './console.css';

const SqlEditor = lazy(() => import('./SqlEditor'));

/**
 * The SQL console: tabs, each with an editor (completion of table and
 * column names), Run (Ctrl/Cmd+Enter) through the same guard as the
 * agent, Stop (Esc), the result as a paged table and a one-click chart;
 * beside them, the workspace's query history.
 */
export function SqlConsole() {
  const a = useActions();
  const tabs = useStore((s) => s.consoleTabs);
  const activeId = useStore((s) => s.consoleTab);
  const datasets = useStore((s) => s.datasets);
  const tab = tabs.find((t) => t.id === activeId) ?? tabs[0]!;
  const [schema, setSchema] = useState<Record<string, string[]>>({});
  const [historyOpen, setHistoryOpen] = useState(false);

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

  const run = () => void a.runConsole(tab.id);
  const stop = () => {
    if (tab.running) void a.cancelConsole(tab.id);
  };

  // Esc stops the shown tab's running query from anywhere in the window.
  useEffect(() => {
    if (!tab.running) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        void a.cancelConsole(tab.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tab.running, tab.id, a]);

  return (
    <div className="console">
      <header className="view-head">
        <h1 className="view-head__title">SQL console</h1>
        <span className="view-head__sub">Read-only DuckDB SQL over your datasets, through the same guard as the agent.</span>
        <span className="view-head__spacer" />
        <button
          type="button"
          className="button console__history-toggle"
          aria-expanded={historyOpen}
          aria-controls="console-history"
          onClick={() => setHistoryOpen((o) => !o)}
        >
          <Icon name="clock" size={13} /> History
        </button>
        {tab.running ? (
          <button type="button" className="button button--stop" onClick={stop} title="Stop the running query (Esc)">
            <span className="spinner spinner--small" /> Stop <kbd>Esc</kbd>
          </button>
        ) : (
          <button type="button" className="button button--primary" onClick={run} disabled={tab.text.trim() === ''}>
            <Icon name="play" size={13} /> Run <kbd>Ctrl+Enter</kbd>
          </button>
        )}
      </header>
      <ConsoleTabs />
      <div className="console__body">
        <div className="console__main">
          <TabView key={tab.id} tab={tab} schema={schema} onRun={run} onStop={stop} />
        </div>
        {historyOpen && <QueryHistory onClose={() => setHistoryOpen(false)} />}
      </div>
    </div>
  );
}

/** One tab's editor and its last run: result, error, or the query running. */
function TabView({
  tab,
  schema,
  onRun,
  onStop,
}: {
  tab: ConsoleTab;
  schema: Record<string, string[]>;
  onRun: () => void;
  onStop: () => void;
}) {
  const a = useActions();
  const { text, result, error, running, ran } = tab;
  const stopped = !running && tab.stoppedAfterMs !== null;
  const [chart, setChart] = useState<{ spec: unknown; title: string } | null>(null);
  const [chartError, setChartError] = useState<string | null>(null);

  // A new result (or none) takes down the chart of the last one.
  useEffect(() => {
    setChart(null);
    setChartError(null);
  }, [result]);

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
    <>
      <div className="console__editor">
        <Suspense fallback={<div className="sql-editor sql-editor--loading">Loading the editor…</div>}>
          <SqlEditor
            value={text}
            nonce={tab.nonce}
            schema={schema}
            onChange={(t) => a.setConsoleText(t)}
            onRun={onRun}
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
            <span className="spinner spinner--small" /> Running… <button type="button" className="chip" onClick={onStop}>Stop</button>
            {source && <span className="console__status-note">The table below is the previous query's result.</span>}
          </div>
        )}
        {!running && stopped && (
          <div className="console__status" role="status" data-testid="console-stopped">
            Stopped after {((tab.stoppedAfterMs ?? 0) / 1000).toFixed(1)} s.
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
    </>
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
