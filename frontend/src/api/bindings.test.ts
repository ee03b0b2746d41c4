import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METHODS } from './transport';

// The drift check: the methods of app.App that `make bindings` generated
// (frontend/wailsjs, regenerated whenever app/*.go changes) are exactly the
// methods this layer calls. A Go method added, renamed or removed without
// the API following fails here (and the `satisfies` in transport.ts fails
// type-checking for the other direction).
const generated = join(__dirname, '../../wailsjs/go/app/App.d.ts');

describe('generated bindings', () => {
  it('bind exactly the methods the API calls', () => {
    expect(existsSync(generated), `${generated} is missing: run make bindings`).toBe(true);
    const bound = [...readFileSync(generated, 'utf8').matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
    expect(bound.sort()).toEqual([...METHODS].sort());
  });
});
