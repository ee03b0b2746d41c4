import { describe, expect, it } from 'vitest';
import { columnFormats, formatCell } from './cellFormat';

const cols = [
  { name: 'month', type: 'TIMESTAMP' },
  { name: 'revenue', type: 'DOUBLE' },
  { name: 'orders', type: 'BIGINT' },
  { name: 'customer_id', type: 'BIGINT' },
  { name: 'year', type: 'INTEGER' },
  { name: 'total', type: 'DECIMAL(18,2)' },
  { name: 'at', type: 'TIMESTAMP' },
  { name: 'region', type: 'VARCHAR' },
];
const rows = [
  ['2024-12-01 00:00:00', 55420.45, 1234567, 100000, 2024, '12345678901234567.89', '2024-12-01 09:30:00', 'West'],
  ['2025-01-01 00:00:00', 30631.2, 12, 100001, 2025, '3.5', '2024-12-02 00:00:00', null],
];

describe('cell formats', () => {
  const f = columnFormats(cols, rows);
  const shown = rows.map((r) => r.map((v, i) => formatCell(v, f[i]!, 'en-US')));

  it('shows a column of midnights as dates, and keeps times elsewhere', () => {
    expect(shown.map((r) => r[0])).toEqual(['2024-12-01', '2025-01-01']);
    expect(shown.map((r) => r[6])).toEqual(['2024-12-01 09:30:00', '2024-12-02 00:00:00']);
  });

  it('writes numbers with thousands separators and the same decimals down a column', () => {
    expect(shown.map((r) => r[1])).toEqual(['55,420.45', '30,631.20']);
    expect(shown.map((r) => r[2])).toEqual(['1,234,567', '12']);
  });

  it('leaves ids and years ungrouped, and exact decimals exact', () => {
    expect(shown.map((r) => r[3])).toEqual(['100000', '100001']);
    expect(shown.map((r) => r[4])).toEqual(['2024', '2025']);
    expect(shown[1]![5]).toBe('3.50');
    expect(shown[0]![5]).toBe('12345678901234567.89');
  });

  it('reads a column without a declared type by its values', () => {
    const g = columnFormats([{ name: 'tracks', type: '' }, { name: 'share', type: '' }, { name: 'genre', type: '' }], [[1297, 0.5, 'Rock'], [579, 0.25, 'Latin']]);
    expect(formatCell(1297, g[0]!, 'en-US')).toBe('1,297');
    expect(formatCell(0.5, g[1]!, 'en-US')).toBe('0.50');
    expect(formatCell('Rock', g[2]!, 'en-US')).toBe('Rock');
  });

  it('follows the locale', () => {
    expect(formatCell(55420.45, f[1]!, 'de-DE')).toBe('55.420,45');
  });

  it('never rounds a small value to zero, and writes NULL and text as they are', () => {
    const g = columnFormats([{ name: 'p', type: 'DOUBLE' }], [[0.5], [0.25]]);
    expect(formatCell(0.0000001, g[0]!, 'en-US')).toBe('1e-7');
    expect(formatCell(null, g[0]!, 'en-US')).toBe('NULL');
    expect(shown[1]![7]).toBe('NULL');
    expect(shown[0]![7]).toBe('West');
  });
});
