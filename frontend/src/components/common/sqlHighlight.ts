// Static SQL highlighting with CodeMirror's SQL grammar. Loaded on demand
// (dynamic import) so the parser stays out of the first bundle.
import { PostgreSQL } from '@codemirror/lang-sql';
import { classHighlighter, highlightCode } from '@lezer/highlight';

/** A run of SQL text and the tok-* classes it is drawn with ('' for plain). */
export interface Token {
  text: string;
  cls: string;
}

/** tokens splits sql into highlighted runs; joined, they give sql back. */
export function tokens(sql: string): Token[] {
  const out: Token[] = [];
  const tree = PostgreSQL.language.parser.parse(sql);
  highlightCode(
    sql,
    tree,
    classHighlighter,
    (text, cls) => out.push({ text, cls }),
    () => out.push({ text: '\n', cls: '' }),
  );
  return out;
}
