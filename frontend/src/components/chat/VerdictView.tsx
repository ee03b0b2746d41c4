import type { VerdictData } from '../../api';
import './verdict.css';

// The validate_finding tool's display data is typed in the API layer,
// checked there against the Go type (tools/validate Verdict).
export type { VerdictData } from '../../api';

const labels: Record<string, string> = {
  supported: 'Supported',
  weak: 'Weak',
  contradicted: 'Contradicted',
  cannot_check: 'Could not check',
};

const checkNames: Record<string, string> = {
  sample_size: 'Sample size',
  nulls: 'Missing values',
  outliers: 'Outliers',
  subgroups: 'Subgroups',
};

/** A finding's check: the verdict, then each check with its result. */
export function VerdictView({ data }: { data: VerdictData }) {
  // The reasons are mostly the checks' own details: each fact is said once,
  // under its check; only reasons of their own are listed above.
  const details = new Set((data.checks ?? []).map((c) => c.detail));
  const reasons = (data.reasons ?? []).filter((r) => !details.has(r));
  return (
    <div className={`verdict verdict--${data.verdict}`}>
      <div className="verdict__head">
        <span className="verdict__badge">{labels[data.verdict] ?? data.verdict}</span>
        <span className="verdict__finding">{data.finding}</span>
      </div>
      {reasons.length > 0 && (
        <ul className="verdict__reasons">
          {reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      <ul className="verdict__checks">
        {(data.checks ?? []).map((c) => (
          <li key={c.name} className={`verdict__check verdict__check--${c.status}`}>
            <b>{checkNames[c.name] ?? c.name}</b> {c.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}
