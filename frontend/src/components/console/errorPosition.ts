// Where in the console's SQL an error is, from DuckDB's LINE marker:
//
//   LINE 2: FROM orders WHERE amont > 5
//                             ^
//
// DuckDB shortens long lines around the error with "..." at either end, so
// the column is found by locating the shown snippet in the real line.

/** A place in the SQL: 1-based line and column. */
export interface SqlPosition {
  line: number;
  column: number;
}

const marker = /^LINE (\d+): (.*)\n( *)\^ *$/m;

/**
 * sqlErrorPosition reads the LINE marker of an error's hint against the SQL
 * that ran. It returns the position (null when there is no marker, or it
 * does not fit the text) and the hint without the marker.
 */
export function sqlErrorPosition(hint: string, sql: string): { position: SqlPosition | null; hint: string } {
  const m = marker.exec(hint);
  if (!m) return { position: null, hint };
  const rest = (hint.slice(0, m.index) + hint.slice(m.index + m[0].length)).trim();
  const line = Number(m[1]);
  let shown = m[2] ?? '';
  let caret = (m[3] ?? '').length - `LINE ${m[1]}: `.length;
  const text = sql.split('\n')[line - 1];
  if (text === undefined || caret < 0) return { position: null, hint: rest };
  if (shown.startsWith('...')) {
    shown = shown.slice(3);
    caret -= 3;
  }
  if (shown.endsWith('...')) shown = shown.slice(0, -3);
  const at = text.indexOf(shown);
  if (at < 0) return { position: null, hint: rest };
  return { position: { line, column: Math.min(at + caret, text.length) + 1 }, hint: rest };
}
