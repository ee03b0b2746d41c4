// What the chart editor reads from a spec and writes back: the mark and the
// fields of its main channels, picked from the chart's own data columns.
import { chartData } from './ChartView';

export type MarkKind = 'bar' | 'line' | 'area' | 'point' | 'arc' | 'rect' | 'tick';

/** The marks the editor offers, with what a user calls them. */
export const MARKS: { mark: MarkKind; label: string }[] = [
  { mark: 'bar', label: 'Bar' },
  { mark: 'line', label: 'Line' },
  { mark: 'area', label: 'Area' },
  { mark: 'point', label: 'Scatter (points)' },
  { mark: 'arc', label: 'Pie (arc)' },
  { mark: 'rect', label: 'Heatmap (rect)' },
  { mark: 'tick', label: 'Strip (tick)' },
];

/** The editor's fields: a mark, x, y and a color (series) field; '' is none. */
export interface ChartFields {
  mark: MarkKind;
  x: string;
  y: string;
  color: string;
}

type Spec = Record<string, unknown>;

const asObj = (v: unknown): Spec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Spec) : undefined);
const fieldOf = (enc: Spec | undefined, ch: string): string => {
  const f = asObj(enc?.[ch])?.['field'];
  return typeof f === 'string' ? f.replace(/\\(.)/g, '$1') : '';
};

/** parseSpec is a spec given as an object or as JSON text. */
export function parseSpec(spec: unknown): Spec {
  const s: unknown = typeof spec === 'string' ? JSON.parse(spec) : spec;
  return asObj(s) ?? {};
}

/** markOf is a spec's mark ("bar", or {type: "bar"}), or '' for composed specs. */
export function markOf(spec: Spec): string {
  const m = spec['mark'];
  if (typeof m === 'string') return m;
  const t = asObj(m)?.['type'];
  return typeof t === 'string' ? t : '';
}

/** fieldsOf reads the editor's fields from a drawn spec; columns fill what it does not say. */
export function fieldsOf(spec: Spec, columns: string[]): ChartFields {
  const enc = asObj(spec['encoding']);
  const m = markOf(spec);
  const mark: MarkKind = (MARKS.find((k) => k.mark === m)?.mark ?? 'bar') as MarkKind;
  if (mark === 'arc') return { mark, x: fieldOf(enc, 'color') || columns[0] || '', y: fieldOf(enc, 'theta') || columns[1] || '', color: '' };
  return {
    mark,
    x: fieldOf(enc, 'x') || columns[0] || '',
    y: fieldOf(enc, 'y') || columns[1] || '',
    color: fieldOf(enc, 'color'),
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}.*)?$/;

/** typeOf is the Vega-Lite type a column's values call for. */
export function typeOf(rows: Record<string, unknown>[], column: string): 'quantitative' | 'temporal' | 'nominal' {
  const vs = rows.map((r) => r[column]).filter((v) => v !== null && v !== undefined);
  if (vs.length > 0 && vs.every((v) => typeof v === 'number')) return 'quantitative';
  if (vs.length > 0 && vs.every((v) => typeof v === 'string' && DATE.test(v))) return 'temporal';
  return 'nominal';
}

/**
 * buildSpec is the spec the fields describe, over the drawn spec's data:
 * its title and description kept, its mark and encoding replaced (its
 * transforms and layers dropped: they name the old chart's fields). A pie
 * takes x as its slices and y as their sizes.
 */
export function buildSpec(drawn: Spec, f: ChartFields): Spec {
  const rows = chartData(drawn)?.rows ?? [];
  const def = (field: string) => ({ field: field.replace(/([.[\]\\])/g, '\\$1'), type: typeOf(rows, field) });
  const out: Spec = { $schema: drawn['$schema'] ?? 'https://vega.github.io/schema/vega-lite/v6.json' };
  for (const k of ['title', 'description']) if (drawn[k] !== undefined) out[k] = drawn[k];
  out['mark'] = { type: f.mark, tooltip: true };
  if (f.mark === 'arc') {
    out['encoding'] = { theta: { ...def(f.y), type: 'quantitative' }, color: { ...def(f.x), type: 'nominal' } };
    return out;
  }
  const enc: Spec = { x: def(f.x), y: def(f.y) };
  if (f.color) enc['color'] = def(f.color);
  out['encoding'] = enc;
  return out;
}

/** withoutData is the spec as the user edits it: its inlined rows left out (the chart keeps its own). */
export function withoutData(spec: Spec): Spec {
  const out = { ...spec };
  delete out['data'];
  return out;
}
