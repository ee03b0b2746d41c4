// The sort and filters a grid asks of its result, and how they read.
import type { ColumnFilter, SortOrder } from '../../api';

/** What the grid asks: one sort column at most, any filters. */
export interface GridView {
  sort: SortOrder[];
  filters: ColumnFilter[];
}

export const NO_VIEW: GridView = { sort: [], filters: [] };

export const isEmptyView = (v: GridView): boolean => v.sort.length === 0 && v.filters.length === 0;

/** The next sort of a header click: ascending, descending, then none. */
export function nextSort(v: GridView, column: string): GridView {
  const cur = v.sort.find((s) => s.column === column);
  const sort: SortOrder[] = !cur ? [{ column, desc: false }] : !cur.desc ? [{ column, desc: true }] : [];
  return { ...v, sort };
}

/** aria-sort of a column header. */
export function ariaSort(v: GridView, column: string): 'ascending' | 'descending' | 'none' {
  const cur = v.sort.find((s) => s.column === column);
  return !cur ? 'none' : cur.desc ? 'descending' : 'ascending';
}

/** The view with column's filters replaced by filters. */
export function withFilters(v: GridView, column: string, filters: ColumnFilter[]): GridView {
  return { ...v, filters: [...v.filters.filter((f) => f.column !== column), ...filters] };
}

const OP_WORDS: Record<string, string> = { contains: 'contains', '=': '=', '!=': '≠', '<': '<', '<=': '≤', '>': '>', '>=': '≥' };

/** "amount ≥ 10, region contains “we”": the filters in words. */
export function describeFilters(filters: ColumnFilter[]): string {
  return filters.map((f) => (f.op === 'contains' ? `${f.column} contains “${f.value}”` : `${f.column} ${OP_WORDS[f.op]} ${f.value}`)).join(', ');
}
