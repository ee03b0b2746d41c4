import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ColumnFilter, ColumnSummary } from '../../api';
import { formatCount } from '../../format';

/** What the panel says of the rows its summary covers. */
export interface SummaryScope {
  rows: number;
  total: number;
  partial: boolean;
}

const numberText = (n: number | null | undefined): string =>
  n === null || n === undefined ? '–' : n.toLocaleString(undefined, { maximumFractionDigits: 4 });

/**
 * The panel of one column, opened from its header: its summary (values,
 * NULLs, distinct values, and for numbers min, max and mean) and its
 * filter — "contains" for any column, a range (at least / at most) for
 * numbers. Esc closes it; Apply (Enter) sets the filter.
 */
export function ColumnPanel({
  id,
  column,
  numeric,
  filters,
  summary,
  scope,
  summaryError,
  onApply,
  onClose,
}: {
  id: string;
  column: { name: string; type: string };
  numeric: boolean;
  filters: ColumnFilter[];
  summary?: ColumnSummary | undefined;
  scope?: SummaryScope | undefined;
  summaryError?: string | undefined;
  onApply: (filters: ColumnFilter[]) => void;
  onClose: () => void;
}) {
  const first = useRef<HTMLInputElement>(null);
  const valueOf = (op: string) => filters.find((f) => f.op === op)?.value ?? '';
  const [contains, setContains] = useState(valueOf('contains'));
  const [atLeast, setAtLeast] = useState(valueOf('>='));
  const [atMost, setAtMost] = useState(valueOf('<='));
  const [problem, setProblem] = useState('');

  useEffect(() => first.current?.focus(), []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const out: ColumnFilter[] = [];
    if (contains.trim()) out.push({ column: column.name, op: 'contains', value: contains.trim() });
    for (const [op, v, word] of [
      ['>=', atLeast, 'At least'],
      ['<=', atMost, 'At most'],
    ] as const) {
      if (!v.trim()) continue;
      if (!Number.isFinite(Number(v.trim()))) {
        setProblem(`${word}: “${v}” is not a number. Write it with a dot for decimals, such as 12.5.`);
        return;
      }
      out.push({ column: column.name, op, value: v.trim() });
    }
    setProblem('');
    onApply(out);
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };

  const label = `${column.name}: summary and filter`;
  return (
    <div className="colpanel" id={id} role="dialog" aria-label={label} onKeyDown={onKey} data-testid="column-panel">
      <div className="colpanel__head">
        <span className="colpanel__title">{column.name}</span>
        <span className="colpanel__type">{column.type.toLowerCase()}</span>
        <button type="button" className="chip" onClick={onClose}>
          Close
        </button>
      </div>
      <dl className="colpanel__summary" aria-label={`Summary of ${column.name}`} data-testid="column-summary">
        {summaryError ? (
          <dd className="colpanel__error">Could not sum up this column: {summaryError}</dd>
        ) : !summary ? (
          <dd>Summing up…</dd>
        ) : (
          <>
            <div>
              <dt>Values</dt>
              <dd>{formatCount(summary.count)}</dd>
            </div>
            <div>
              <dt>NULL</dt>
              <dd>{formatCount(summary.nulls)}</dd>
            </div>
            <div>
              <dt>Distinct</dt>
              <dd>{formatCount(summary.distinct)}</dd>
            </div>
            {numeric && (
              <>
                <div>
                  <dt>Min</dt>
                  <dd>{numberText(summary.min)}</dd>
                </div>
                <div>
                  <dt>Max</dt>
                  <dd>{numberText(summary.max)}</dd>
                </div>
                <div>
                  <dt>Mean</dt>
                  <dd>{numberText(summary.mean)}</dd>
                </div>
              </>
            )}
          </>
        )}
      </dl>
      {scope && (
        <p className="colpanel__scope">
          {scope.partial
            ? `Over the ${formatCount(scope.rows)} rows held, not all ${formatCount(scope.total)} the query produced.`
            : `Over all ${formatCount(scope.rows)} rows shown.`}
        </p>
      )}
      <form className="colpanel__filter" onSubmit={submit}>
        <label>
          Contains
          <input ref={first} type="text" value={contains} onChange={(e) => setContains(e.target.value)} placeholder="any case" />
        </label>
        {numeric && (
          <>
            <label>
              At least
              <input type="text" inputMode="decimal" value={atLeast} onChange={(e) => setAtLeast(e.target.value)} />
            </label>
            <label>
              At most
              <input type="text" inputMode="decimal" value={atMost} onChange={(e) => setAtMost(e.target.value)} />
            </label>
          </>
        )}
        <span className="colpanel__buttons">
          <button type="submit" className="button button--primary">
            Apply filter
          </button>
          <button type="button" className="button" disabled={filters.length === 0} onClick={() => onApply([])}>
            Clear filter
          </button>
        </span>
        {problem && (
          <p className="colpanel__error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </div>
  );
}
