import { describe, expect, it } from 'vitest';
import { dataset } from '../../test/fakeApi';
import { exampleQuestions } from './ChatView';

describe('exampleQuestions', () => {
  it('asks about measures, not identifiers, by the columns’ kinds', () => {
    const d = dataset('requests', {
      rows: 1000,
      columns: [
        { name: 'unique_key', type: 'BIGINT', nulls: 0, distinct: 1000 },
        { name: 'agency', type: 'VARCHAR', nulls: 0, distinct: 8 },
        { name: 'days_to_close', type: 'DOUBLE', nulls: 0, distinct: 199 },
        { name: 'created', type: 'TIMESTAMP', nulls: 0, distinct: 998 },
      ],
    });
    expect(exampleQuestions([d])).toEqual([
      'Which agency has the highest average days to close?',
      'How does requests change over time?',
      'Is anything odd in the data of requests?',
    ]);
    expect(exampleQuestions([dataset('sales')])[0]).toBe('Which region has the highest total amount?');
  });
});
