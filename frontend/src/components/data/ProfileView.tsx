import type { ProfileColumn, ProfileData } from '../../api';
import { cellText, formatCount } from '../../format';
import './profile.css';

// The profile tool's display data is typed in the API layer, checked there
// against the Go type (tools/profile Profile).
export type { ProfileColumn, ProfileData } from '../../api';

const num = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A table profile: per column, nulls, distinct values, range and quality flags. */
export function ProfileView({ data }: { data: ProfileData }) {
  return (
    <div className="profile" data-testid="profile">
      <div className="profile__meta">
        {data.table} · {formatCount(data.rows)} rows{data.approx ? ' · estimates (large table)' : ''}
      </div>
      <table className="profile__table">
        <thead>
          <tr>
            <th>Column</th>
            <th>Nulls</th>
            <th>Distinct</th>
            <th>Range</th>
            <th>Typical values</th>
          </tr>
        </thead>
        <tbody>
          {data.columns.map((c) => (
            <tr key={c.name}>
              <td>
                <div className="profile__name">{c.name}</div>
                <div className="profile__type">{c.type.toLowerCase()}</div>
              </td>
              <td>
                <NullBar pct={c.null_pct} />
                <span className="profile__num">{formatCount(c.nulls)}</span>
              </td>
              <td className="profile__num">
                {c.distinct_approx ? '≈' : ''}
                {formatCount(c.distinct)}
              </td>
              <td className="profile__range">{range(c)}</td>
              <td>
                <div className="profile__top">
                  {(c.top ?? []).slice(0, 4).map((t) => (
                    <span key={t.value} className="profile__chip" title={`${t.count} rows`}>
                      {t.value === '' ? '∅' : t.value} <em>{formatCount(t.count, true)}</em>
                    </span>
                  ))}
                </div>
                {(c.flags ?? []).map((f) => (
                  <div key={f.code} className="profile__flag">
                    {f.message}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NullBar({ pct }: { pct: number }) {
  const p = Math.max(0, Math.min(100, pct));
  return (
    <span className="nullbar" title={`${num.format(p)}% NULL`}>
      <span style={{ width: `${p}%` }} />
    </span>
  );
}

function range(c: ProfileColumn): string {
  if (c.quantiles && c.mean !== undefined) {
    return `${fmt(c.min)} – ${fmt(c.max)} · median ${num.format(c.quantiles.median)}`;
  }
  if (c.min !== undefined || c.max !== undefined) return `${fmt(c.min)} – ${fmt(c.max)}`;
  return '';
}

function fmt(v: unknown): string {
  return typeof v === 'number' ? num.format(v) : cellText(v);
}
