// The typed API layer: the only module that talks to the Go backend. It wraps
// the bindings Wails generates in ../../wailsjs so components never depend on
// the bridge, and behaves sensibly when the bridge is missing (a plain
// browser during `npm run dev`, or Vitest).
import * as App from '../../wailsjs/go/app/App';

/** An error reported by the Go backend, or a failure to reach it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True when the page runs inside the Loupe window, with the Go backend bound. */
export function isDesktop(): boolean {
  return typeof window !== 'undefined' && window.go?.app?.App !== undefined;
}

/**
 * The version of the running Loupe binary, or null when there is no backend
 * (see isDesktop). Rejects with ApiError when the backend reports an error.
 */
export async function getVersion(): Promise<string | null> {
  if (!isDesktop()) {
    return null;
  }
  return call('Version', () => App.Version());
}

// call runs one bound method and turns the rejections Wails produces (a bare
// string holding the Go error's message) into ApiError.
async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new ApiError(`${method}: ${detail}`, { cause: err });
  }
}
