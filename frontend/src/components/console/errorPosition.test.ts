import { describe, expect, it } from 'vitest';
import { sqlErrorPosition } from './errorPosition';

describe('sqlErrorPosition', () => {
  it('reads the line and column of DuckDB LINE marker and drops it from the hint', () => {
    const sql = 'SELECT region,\n  sum(amont)\nFROM orders';
    const hint = 'Candidate bindings: "amount"\n\nLINE 2:   sum(amont)\n              ^';
    expect(sqlErrorPosition(hint, sql)).toEqual({ position: { line: 2, column: 7 }, hint: 'Candidate bindings: "amount"' });
  });

  it('finds the place in a long line DuckDB shortened with dots', () => {
    const pad = 'x, '.repeat(40);
    const sql = `SELECT ${pad}amont FROM orders`;
    const shown = `...${pad.slice(-30)}amont FROM orders`;
    const hint = `LINE 1: ${shown}\n${' '.repeat('LINE 1: '.length + 3 + 30)}^`;
    const got = sqlErrorPosition(hint, sql);
    expect(got.position).toEqual({ line: 1, column: sql.indexOf('amont') + 1 });
  });

  it('says nothing when there is no marker or it does not fit the text', () => {
    expect(sqlErrorPosition('Fix the query and run it again.', 'SELECT 1')).toEqual({ position: null, hint: 'Fix the query and run it again.' });
    expect(sqlErrorPosition('LINE 3: nope\n        ^', 'SELECT 1').position).toBeNull();
  });
});
