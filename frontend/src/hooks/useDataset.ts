import { useEffect, useState } from 'react';
import * as api from '../api';
import type { Dataset, DatasetSummary } from '../api';

/**
 * useDataset fetches the whole dataset (columns and their statistics) a
 * summary of the list stands for, when it is needed: the list itself holds
 * summaries only, so that thousands of datasets list quickly. It fetches
 * again when the dataset changes (loaded again, or its note), and is null
 * until fetched, or when summary is null or the fetch failed.
 */
export function useDataset(summary: DatasetSummary | null | undefined): Dataset | null {
  const [d, setD] = useState<Dataset | null>(null);
  const name = summary?.name;
  const version = summary ? `${summary.loadedAt}|${summary.note ?? ''}` : '';
  useEffect(() => {
    setD(null);
    if (!name) return;
    let live = true;
    api.getDataset(name).then(
      (got) => live && setD(got),
      () => live && setD(null),
    );
    return () => {
      live = false;
    };
  }, [name, version]);
  return d;
}

/**
 * useDatasets fetches the whole datasets of the first n summaries (for the
 * questions the empty chat suggests from their columns); the ones not
 * fetched yet, or that failed, are left out.
 */
export function useDatasets(summaries: readonly DatasetSummary[], n: number): Dataset[] {
  const [ds, setDs] = useState<Dataset[]>([]);
  const key = summaries
    .slice(0, n)
    .map((s) => `${s.name}|${s.loadedAt}`)
    .join('\n');
  useEffect(() => {
    let live = true;
    const names = key === '' ? [] : key.split('\n').map((k) => k.slice(0, k.lastIndexOf('|')));
    Promise.allSettled(names.map((name) => api.getDataset(name))).then((rs) => {
      if (live) setDs(rs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
    });
    return () => {
      live = false;
    };
  }, [key]);
  return ds;
}
