import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ToolChart } from '../../api';
import { problemOf } from '../../state/problem';
import { buildSpec, fieldsOf, MARKS, parseSpec, withoutData, type ChartFields, type MarkKind } from './chartEdit';
import { chartData } from './ChartView';

/**
 * The editor over an answer's chart: its type and the fields of x, y and
 * color picked from the chart's own data columns, or, under Advanced, its
 * Vega-Lite spec as JSON (without the data, which the chart keeps). save
 * sends the spec to Go, which checks it as it checks the model's and
 * keeps it with the answer; its problem is shown here. Esc cancels.
 */
export function ChartEditor({
  chart,
  save,
  reset,
  onClose,
}: {
  chart: ToolChart;
  /** Keeps spec (JSON text) as the chart; rejects with what is wrong. */
  save: (spec: string) => Promise<unknown>;
  /** Goes back to the chart drawn with the answer (only for an edited chart). */
  reset?: (() => Promise<unknown>) | undefined;
  onClose: () => void;
}) {
  const drawn = useMemo(() => parseSpec(chart.spec), [chart.spec]);
  const columns = useMemo(() => chartData(drawn)?.columns ?? [], [drawn]);
  const [fields, setFields] = useState<ChartFields>(() => fieldsOf(drawn, columns));
  const [advanced, setAdvanced] = useState(false);
  const [json, setJson] = useState(() => JSON.stringify(withoutData(drawn), null, 2));
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLSelectElement>(null);
  const id = useId();

  useEffect(() => first.current?.focus(), []);

  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setProblem('');
    try {
      await fn();
      onClose();
    } catch (err) {
      const p = problemOf(err);
      setProblem(p.hint ? `${p.message} ${p.hint}` : p.message);
    } finally {
      setBusy(false);
    }
  };

  const applyFields = (e: FormEvent) => {
    e.preventDefault();
    void run(() => save(JSON.stringify(buildSpec(drawn, fields))));
  };

  const applyJson = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      setProblem(`The spec is not valid JSON: ${err instanceof Error ? err.message : String(err)}. Check its brackets, quotes and commas.`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setProblem('The spec must be a JSON object: {"mark": …, "encoding": {…}}.');
      return;
    }
    void run(() => save(JSON.stringify(parsed)));
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };

  const pick = (k: keyof ChartFields, label: string, optional = false) => (
    <span className="charted__field">
      <label htmlFor={`${id}-${k}`}>{label}</label>
      <select id={`${id}-${k}`} value={fields[k]} onChange={(e) => setFields((f) => ({ ...f, [k]: e.target.value }))}>
        {optional && <option value="">None</option>}
        {columns.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </span>
  );

  const pie = fields.mark === 'arc';
  return (
    <section className="charted" role="region" aria-labelledby={`${id}-h`} onKeyDown={onKey} data-testid="chart-editor">
      <h3 className="charted__heading" id={`${id}-h`}>
        Edit the chart
      </h3>
      <form className="charted__fields" onSubmit={applyFields}>
        <span className="charted__field">
          <label htmlFor={`${id}-mark`}>Type</label>
          <select id={`${id}-mark`} ref={first} value={fields.mark} onChange={(e) => setFields((f) => ({ ...f, mark: e.target.value as MarkKind }))}>
            {MARKS.map((m) => (
              <option key={m.mark} value={m.mark}>
                {m.label}
              </option>
            ))}
          </select>
        </span>
        {pick('x', pie ? 'Slices' : 'X')}
        {pick('y', pie ? 'Sizes' : 'Y')}
        {!pie && pick('color', 'Color (series)', true)}
        <button type="submit" className="button button--primary" disabled={busy || columns.length === 0}>
          Apply
        </button>
      </form>
      <details className="charted__advanced" open={advanced} onToggle={(e) => setAdvanced((e.target as HTMLDetailsElement).open)}>
        <summary>Advanced: the Vega-Lite spec</summary>
        <p className="charted__note">
          The chart keeps its own data: leave &quot;data&quot; out. Nothing may be fetched (no url, href or image); fields must be the data&apos;s
          columns: {columns.join(', ')}.
        </p>
        <textarea
          aria-label="Vega-Lite spec (JSON)"
          className="charted__json"
          spellCheck={false}
          value={json}
          onChange={(e) => setJson(e.target.value)}
          rows={12}
        />
        <button type="button" className="button" disabled={busy} onClick={applyJson}>
          Apply the spec
        </button>
      </details>
      {problem && (
        <p className="charted__problem" role="alert">
          {problem}
        </p>
      )}
      <div className="charted__buttons">
        {reset && (
          <button type="button" className="button" disabled={busy} onClick={() => void run(reset)}>
            Back to the chart drawn with the answer
          </button>
        )}
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </section>
  );
}
