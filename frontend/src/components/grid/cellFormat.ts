// How a result's cells are shown: numbers by type in the reader's locale
// (thousands separators, the same decimals down a column), timestamps that
// are all at midnight as dates. What is copied or exported stays the raw
// value; only the display changes.
import { cellText } from '../../format';

/** How one column's cells are written. */
export interface ColumnFormat {
  kind: 'integer' | 'decimal' | 'timestamp' | 'other';
  /** Thousands separators (not for ids, years, codes). */
  group: boolean;
  /** Decimals every value of a decimal column is shown with. */
  decimals: number;
  /** A timestamp column whose sampled values are all at midnight: shown as dates. */
  dateOnly: boolean;
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|INT\d*)\b/i;
const DECIMAL = /^(FLOAT|DOUBLE|REAL|DECIMAL|NUMERIC)/i;
const TIMESTAMP = /^TIMESTAMP/i;
/** Names of integer columns that are labels, not amounts: no thousands separators. */
const LABEL = /(^|_|\b)(id|year|yr|code|zip|postcode|postal_code|phone|number|no|nr|key)s?$|id$/i;
/** The most decimals a column is shown with. */
const MAX_DECIMALS = 6;
const MIDNIGHT = ' 00:00:00';

/**
 * columnFormats decides each column's format from its type and name and
 * the rows at hand (the first page): a decimal column gets the most
 * decimals any of them has (at most 6), a timestamp column whose values
 * are all at midnight is shown as dates.
 */
export function columnFormats(columns: { name: string; type: string }[], rows: unknown[][]): ColumnFormat[] {
  return columns.map((c, i) => {
    // No declared type (a SQLite expression such as count(*)): numbers by their values.
    const values = rows.map((r) => r[i]).filter((v) => v !== null && v !== undefined);
    const typeless = c.type.trim() === '' && values.length > 0 && values.every((v) => typeof v === 'number');
    if (typeless && values.every((v) => Number.isInteger(v))) return { kind: 'integer', group: !LABEL.test(c.name), decimals: 0, dateOnly: false };
    if (INTEGER.test(c.type)) return { kind: 'integer', group: !LABEL.test(c.name), decimals: 0, dateOnly: false };
    if (DECIMAL.test(c.type) || typeless) {
      let decimals = 0;
      for (const r of rows) decimals = Math.max(decimals, fractionDigits(r[i]));
      return { kind: 'decimal', group: !LABEL.test(c.name), decimals: Math.min(decimals, MAX_DECIMALS), dateOnly: false };
    }
    if (TIMESTAMP.test(c.type) && !/TZ|ZONE/i.test(c.type)) {
      const seen = rows.map((r) => r[i]).filter((v): v is string => typeof v === 'string');
      return { kind: 'timestamp', group: false, decimals: 0, dateOnly: seen.length > 0 && seen.every((v) => v.endsWith(MIDNIGHT)) };
    }
    return { kind: 'other', group: false, decimals: 0, dateOnly: false };
  });
}

function fractionDigits(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const s = String(v);
    if (s.includes('e')) return MAX_DECIMALS;
    const dot = s.indexOf('.');
    return dot < 0 ? 0 : s.length - dot - 1;
  }
  if (typeof v === 'string' && /^-?\d+\.\d+$/.test(v)) return v.length - v.indexOf('.') - 1; // an exact decimal sent as text
  return 0;
}

const formatters = new Map<string, Intl.NumberFormat>();

function numberFormat(group: boolean, decimals: number, locale?: string): Intl.NumberFormat {
  const key = `${locale ?? ''}|${group}|${decimals}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { useGrouping: group, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    formatters.set(key, f);
  }
  return f;
}

/**
 * formatCell writes v as its column's format says. A number too small for
 * the column's decimals (it would read 0.00) or too big for a float, text
 * and everything else are written as cellText does; a timestamp not at
 * midnight keeps its time in a date-only column.
 */
export function formatCell(v: unknown, f: ColumnFormat, locale?: string): string {
  if (v === null || v === undefined) return cellText(v);
  switch (f.kind) {
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return numberFormat(f.group, 0, locale).format(v);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return numberFormat(f.group, 0, locale).format(BigInt(v));
      break;
    case 'decimal': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
      if (!Number.isFinite(n) || Math.abs(n) >= 1e15) break;
      if (n !== 0 && Math.abs(n) < 0.5 * 10 ** -f.decimals) break;
      return numberFormat(f.group, f.decimals, locale).format(n);
    }
    case 'timestamp':
      if (f.dateOnly && typeof v === 'string' && v.endsWith(MIDNIGHT)) return v.slice(0, -MIDNIGHT.length);
      break;
  }
  return cellText(v);
}
