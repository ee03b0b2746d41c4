import { describe, expect, it } from 'vitest';
import { ApiError, isApiError, toApiError } from './errors';

describe('toApiError', () => {
  const sql = { code: 'sql', message: 'Table "ordrs" does not exist', hint: 'Did you mean "orders"?' };

  it.each([
    ['the object Wails rejects with (app.FormatError)', sql],
    ['its JSON as a string (Error() of app.Error)', JSON.stringify(sql)],
    ['an Error whose message is that JSON', new Error(JSON.stringify(sql))],
    ['the JSON with surrounding space', `  ${JSON.stringify(sql)}\n`],
  ])('reads code, message and hint from %s', (_, rejected) => {
    const e = toApiError(rejected, 'RunSQL');
    expect(e).toBeInstanceOf(ApiError);
    expect(isApiError(e)).toBe(true);
    expect(e.name).toBe('ApiError');
    expect([e.code, e.message, e.hint]).toEqual(['sql', sql.message, sql.hint]);
  });

  it('gives a missing hint as empty', () => {
    const e = toApiError({ code: 'busy', message: 'Still answering' });
    expect([e.code, e.message, e.hint]).toEqual(['busy', 'Still answering', '']);
  });

  it.each([
    ['a bare string', 'error parsing arguments: json: cannot unmarshal', 'Page: error parsing arguments: json: cannot unmarshal'],
    ['an Error', new Error('bridge gone'), 'Page: bridge gone'],
    ['JSON that is not an error', '{"rows": 3}', 'Page: {"rows": 3}'],
    ['broken JSON', '{"code": "sql", ', 'Page: {"code": "sql", '],
    ['a number', 42, 'Page: 42'],
  ])('makes %s an internal error naming the method', (_, rejected, message) => {
    const e = toApiError(rejected, 'Page');
    expect([e.code, e.message, e.hint]).toEqual(['internal', message, '']);
    expect(e.cause).toBe(rejected);
  });

  it('passes an ApiError through', () => {
    const e = new ApiError('refused', 'Refused', 'Write a SELECT');
    expect(toApiError(e, 'RunSQL')).toBe(e);
  });
});
