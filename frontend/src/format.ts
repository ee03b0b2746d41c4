// Numbers, sizes, paths and dates as the UI writes them.

const intl = new Intl.NumberFormat('en-US');

/** 1234 → "1,234"; 1234567 → "1.2M" when short is set. */
export function formatCount(n: number | undefined, short = false): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  if (short && Math.abs(n) >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (short && Math.abs(n) >= 10_000) return `${trim(n / 1_000)}K`;
  return intl.format(n);
}

function trim(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(1).replace(/\.0$/, '');
}

/** "1 row", "42 rows". */
export function rows(n: number | undefined, short = false): string {
  return `${formatCount(n ?? 0, short)} ${n === 1 ? 'row' : 'rows'}`;
}

export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n) || n <= 0) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** The last element of a path, for either separator. */
export function basename(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

/** A cell value as text: NULL for null, JSON for objects. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Text a spreadsheet reads as a number and nothing else: "-12.5", "+3", "1e-3". */
const PLAIN_NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/**
 * A cell as copied to the clipboard, for pasting into a spreadsheet: text a
 * spreadsheet could run as a formula (starting with =, +, -, @, a tab or a
 * carriage return, unless it is a plain number) gets a leading ', as CSV
 * exports do (Go's results.SafeCell), and a cell holding a tab, a line
 * break or a double quote is quoted (its quotes doubled), so that it stays
 * one cell and no line of it starts a cell of its own.
 */
export function clipboardCell(v: unknown): string {
  let s = cellText(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  if (/[\t\n\r"]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

export type DateGroup = 'Today' | 'Yesterday' | 'Last 7 days' | 'Older';
export const DATE_GROUPS: readonly DateGroup[] = ['Today', 'Yesterday', 'Last 7 days', 'Older'];

/** Which sidebar group a moment falls in, seen from now (local calendar days). */
export function dateGroup(when: string | number | Date, now: Date = new Date()): DateGroup {
  const d = new Date(when);
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 24 * 60 * 60 * 1000;
  const t = d.getTime();
  if (Number.isNaN(t)) return 'Older';
  if (t >= startOfToday) return 'Today';
  if (t >= startOfToday - day) return 'Yesterday';
  if (t >= startOfToday - 6 * day) return 'Last 7 days';
  return 'Older';
}
