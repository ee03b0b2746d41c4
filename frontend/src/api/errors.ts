import type { ApiErrorShape, ErrorCode } from './types';

/**
 * Every rejected API call rejects with an ApiError: a code to switch on, a
 * message in plain words and a hint saying what to do (possibly empty).
 */
export class ApiError extends Error implements ApiErrorShape {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly hint: string;

  constructor(code: ErrorCode, message: string, hint = '', options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.hint = hint;
  }
}

/** isApiError tells an ApiError from any other thrown value. */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

function isShape(v: unknown): v is { code: string; message: string; hint?: unknown } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.code === 'string' && o.code !== '' && typeof o.message === 'string';
}

function fromShape(v: { code: string; message: string; hint?: unknown }, cause: unknown): ApiError {
  return new ApiError(v.code, v.message, typeof v.hint === 'string' ? v.hint : '', { cause });
}

/** parseShape reads {code, message, hint} from a JSON string, or null. */
function parseShape(s: string): { code: string; message: string; hint?: unknown } | null {
  const t = s.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    return isShape(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * toApiError turns whatever a transport rejected with into an ApiError.
 *
 * The Go side fails with {code, message, hint}: the window's bridge rejects
 * with that object (app.FormatError), web mode sends it as the response
 * body, and where it travels as a string (Wails without the formatter,
 * logs) the string is that object's JSON. Anything else — Wails' own
 * failures such as "error parsing arguments", a broken bridge — becomes
 * code "internal" with the method's name in front of the message.
 */
export function toApiError(err: unknown, method?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (isShape(err)) return fromShape(err, err);
  const text = err instanceof Error ? err.message : typeof err === 'string' ? err : undefined;
  if (text !== undefined) {
    const shape = parseShape(text);
    if (shape) return fromShape(shape, err);
    return new ApiError('internal', method ? `${method}: ${text}` : text, '', { cause: err });
  }
  return new ApiError('internal', method ? `${method}: ${String(err)}` : String(err), '', { cause: err });
}
