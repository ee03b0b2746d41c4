// Suggested questions for the tables loaded: few, and only ones a person
// would ask. The bundled sample keeps its handpicked questions; other tables
// get questions made from what they say about themselves — notes, keys that
// join two tables, dates and measures — and never from meaningless names
// ("column b", "c", "unnamed_3").
import type { Dataset, DatasetColumn } from '../../api';

/** At most this many questions are suggested. */
export const MAX_SUGGESTIONS = 3;

/** The sample's files, as the sample loader writes them into the workspace (app/sample). */
const SAMPLE = /[\\/]sample[\\/](orders|customers|products)\.csv$/;

/** isSample says whether d is one of the bundled sample's tables. */
export function isSample(d: Pick<Dataset, 'source'>): boolean {
  return SAMPLE.test(d.source);
}

/**
 * meaningful says whether a name says what it holds: not a placeholder a
 * file without a header gets (column4, col_b, "column b", unnamed_3, V2), not
 * a single letter or a bare number.
 */
export function meaningful(name: string): boolean {
  const n = name.trim().toLowerCase();
  if (n.length < 3 || !/[a-z]{2}/.test(n)) return false;
  return !/^(column|col|field|unnamed|var|v|x|c|f)[\s_:.-]*([a-z]|\d+)?$/.test(n);
}

const NUMBER = /^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|DOUBLE|FLOAT|REAL|DECIMAL|NUMERIC)/i;
const TEXT = /^(VARCHAR|TEXT|STRING|ENUM)/i;
const TIME = /^(DATE|TIMESTAMP)/i;
const ID = /(^|_)(id|key|code|no|number|zip|postcode|phone)$|^id/i;
const SUMMED = /amount|revenue|sales|price|total|cost|spend|qty|quantity|units|value|income|profit/i;

function words(name: string): string {
  return name.replace(/_/g, ' ').trim();
}

/** A described column comes first: the user's note says it matters. */
function byNote(a: DatasetColumn, b: DatasetColumn): number {
  return Number(Boolean(b.note || b.comment)) - Number(Boolean(a.note || a.comment));
}

/** A measure: a meaningful number that is not an identifier (by name, or unique per row). */
function measures(d: Dataset): DatasetColumn[] {
  return d.columns
    .filter((c) => NUMBER.test(c.type) && meaningful(c.name) && !ID.test(c.name) && !(d.rows > 10 && c.distinct >= d.rows * 0.95))
    .sort(byNote);
}

/** A dimension: meaningful text with a few values (a category, a region). */
function dimensions(d: Dataset): DatasetColumn[] {
  return d.columns.filter((c) => TEXT.test(c.type) && meaningful(c.name) && !ID.test(c.name) && c.distinct > 1 && c.distinct <= 50).sort(byNote);
}

function dates(d: Dataset): DatasetColumn[] {
  return d.columns.filter((c) => TIME.test(c.type) && meaningful(c.name)).sort(byNote);
}

/**
 * joined is a question across two tables a key joins (orders.customer_id
 * and customers.customer_id): which of the one have the most of the other.
 */
function joined(datasets: readonly Dataset[]): string | undefined {
  for (const many of datasets) {
    for (const c of many.columns) {
      if (!/_id$|_key$/i.test(c.name)) continue;
      const one = datasets.find((o) => o !== many && o.columns.some((x) => x.name === c.name) && o.rows < many.rows);
      if (one && meaningful(one.name) && meaningful(many.name)) return `Which ${words(one.name)} have the most ${words(many.name)}?`;
    }
  }
  return undefined;
}

/** Questions made from one table, best first. */
function fromTable(d: Dataset): string[] {
  const out: string[] = [];
  const m = measures(d)[0];
  const dim = dimensions(d)[0];
  const t = dates(d)[0];
  const how = m && SUMMED.test(m.name) ? 'total' : 'average';
  if (m && dim) out.push(`Which ${words(dim.name)} has the highest ${how} ${words(m.name)}?`);
  if (m && t && meaningful(d.name)) out.push(`How has the ${how} ${words(m.name)} changed over time, by month?`);
  else if (t && meaningful(d.name)) out.push(`How many ${words(d.name)} are there per month?`);
  return out;
}

/**
 * suggestQuestions are the questions offered before the first one is
 * asked: the sample's handpicked ones when the sample is loaded (sample),
 * then questions made from keys, measures by dimension and measures over
 * time, at most MAX_SUGGESTIONS, and none at all rather than one made from
 * names that mean nothing.
 */
export function suggestQuestions(datasets: readonly Dataset[], sample: readonly string[] = []): string[] {
  const own = datasets.filter((d) => !isSample(d));
  const out: string[] = datasets.some(isSample) ? sample.slice(0, MAX_SUGGESTIONS) : [];
  const made: string[] = [];
  const join = joined(own);
  if (join) made.push(join);
  // One question per table first, then the second of each.
  const per = own.slice(0, 3).map(fromTable);
  for (let i = 0; i < 2; i++) for (const qs of per) if (qs[i]) made.push(qs[i]!);
  if (made.length === 0 && own.length > 0 && meaningful(own[0]!.name)) made.push(`What stands out in ${words(own[0]!.name)}?`);
  for (const q of made) if (out.length < MAX_SUGGESTIONS && !out.includes(q)) out.push(q);
  return out;
}
