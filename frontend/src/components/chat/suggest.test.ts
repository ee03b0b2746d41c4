import { describe, expect, it } from 'vitest';
import type { DatasetColumn } from '../../api';
import { dataset } from '../../test/fakeApi';
import { meaningful, suggestQuestions } from './suggest';

const col = (name: string, type: string, distinct: number, note?: string): DatasetColumn => ({ name, type, nulls: 0, distinct, ...(note ? { note } : {}) });

describe('suggestQuestions', () => {
  it('keeps the sample’s handpicked questions once the sample is loaded', () => {
    const sample = ['Which product category brought in the most revenue in 2024?', 'Who are our ten best customers by total spend?', 'A', 'B'];
    const loaded = ['orders', 'customers', 'products'].map((n) => dataset(n, { source: `/home/me/.loupe/ws/sample/${n}.csv` }));
    expect(suggestQuestions(loaded, sample)).toEqual(sample.slice(0, 3));
  });

  it('asks about measures by dimension and over time, not about identifiers', () => {
    const d = dataset('requests', {
      rows: 1000,
      columns: [col('unique_key', 'BIGINT', 1000), col('agency', 'VARCHAR', 8), col('days_to_close', 'DOUBLE', 199), col('created', 'TIMESTAMP', 998)],
    });
    expect(suggestQuestions([d])).toEqual([
      'Which agency has the highest average days to close?',
      'How has the average days to close changed over time, by month?',
    ]);
  });

  it('asks across tables a key joins, and prefers the columns the user described', () => {
    const orders = dataset('orders', {
      rows: 2000,
      columns: [col('order_id', 'BIGINT', 2000), col('customer_id', 'BIGINT', 150), col('quantity', 'INTEGER', 9), col('unit_price', 'DOUBLE', 80, 'in euros, before discount'), col('channel', 'VARCHAR', 3)],
    });
    const customers = dataset('customers', { rows: 150, columns: [col('customer_id', 'BIGINT', 150), col('region', 'VARCHAR', 4)] });
    // Fewer rather than filler: customers has no measure, orders no date.
    expect(suggestQuestions([orders, customers])).toEqual(['Which customers have the most orders?', 'Which channel has the highest total unit price?']);
  });

  it('makes no question from names that mean nothing', () => {
    const messy = dataset('messy', {
      rows: 40,
      columns: [col('column b', 'DOUBLE', 30), col('c', 'VARCHAR', 5), col('column4', 'VARCHAR', 3), col('V2', 'DOUBLE', 20)],
    });
    const got = suggestQuestions([messy]);
    expect(got).toEqual(['What stands out in messy?']);
    expect(got.join(' ')).not.toMatch(/column|\bc\b|V2/);
    expect(suggestQuestions([dataset('column1', { columns: [col('column b', 'DOUBLE', 30)] })])).toEqual([]);
  });

  it('tells meaningful names from placeholders', () => {
    for (const n of ['column b', 'column4', 'col_2', 'Unnamed: 3', 'c', 'V2', 'x1', '12']) expect(meaningful(n), n).toBe(false);
    for (const n of ['region', 'days_to_close', 'unit_price', 'customer', 'vat']) expect(meaningful(n), n).toBe(true);
  });
});
