// Errors as the UI shows them: what went wrong and what to do about it.

/** An error from the backend (ApiError) or anywhere else, ready to show. */
export interface Problem {
  code: string;
  message: string;
  hint: string;
}

/** problemOf turns whatever was thrown into a Problem. */
export function problemOf(err: unknown): Problem {
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; message?: unknown; hint?: unknown };
    return {
      code: typeof e.code === 'string' ? e.code : 'internal',
      message: typeof e.message === 'string' && e.message !== '' ? e.message : String(err),
      hint: typeof e.hint === 'string' ? e.hint : '',
    };
  }
  return { code: 'internal', message: String(err), hint: '' };
}
