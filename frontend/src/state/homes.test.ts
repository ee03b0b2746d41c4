import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// One home for actions (state/actions/) and one for event subscriptions
// (state/events.ts): the rest of the UI reaches the backend's events and
// changes shared state only through them.

const src = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' ? [] : sources(p);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [relative(src, p)] : [];
  });
}

/** The files outside allowed whose code matches pattern. */
function offenders(pattern: RegExp, allowed: (file: string) => boolean): string[] {
  return sources(src).filter((f) => !allowed(f) && pattern.test(readFileSync(join(src, f), 'utf8')));
}

describe('homes', () => {
  it('only the API layer and state/events.ts subscribe to backend events', () => {
    const found = offenders(/\b(onEvent|onFileDrop|api\.onRunEvents)\(/, (f) => f.startsWith('api/') || f === 'state/events.ts');
    expect(found, 'subscribe through useBackend or useBackendEvent (state/events.ts)').toEqual([]);
  });

  it('only the actions (and the store itself) change shared state', () => {
    const found = offenders(/\bstore\.set\(/, (f) => f.startsWith('state/actions/') || f === 'state/events.ts' || f === 'state/store.ts');
    expect(found, 'add an action in state/actions/ and call it through useActions').toEqual([]);
  });

  it('finds what it looks for', () => {
    expect(sources(src)).toContain('state/events.ts');
    expect(offenders(/\bapi\.onEvent\(/, () => false)).toContain('state/events.ts');
    expect(offenders(/\bstore\.set\(/, () => false)).toContain('state/actions/chats.ts');
  });
});
