import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The drift check of the DTOs: app/dto_fixtures_test.go writes every value
// the backend sends, with every field set, to testdata/NAME.json, NAME being
// the interface of types.ts that describes it (the Go test fails when a
// fixture is stale). Here the TypeScript compiler checks each fixture as an
// object literal against that interface with every key required and literal
// unions widened: a key Go sends that types.ts lacks is an excess property,
// a key types.ts declares that Go does not send is a missing one, and a
// string where types.ts says number (or an object where it says an array)
// is a type error. types.ts stays written by hand, for its narrow unions
// and its comments; this test keeps it honest.

const here = __dirname;
const fixtureDir = join(here, 'testdata');
const typesFile = join(here, 'types.ts');
const checkFile = join(here, '__dto_check__.ts');

/** Interfaces of types.ts with no Go value behind them. */
const frontendOnly = new Set(['EventMap']);

const fixtures = readdirSync(fixtureDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

const PRELUDE = `import type * as T from './types';
// Every key required, literal unions widened to their primitive.
type Exact<V> = unknown extends V ? unknown
  : V extends string ? string
  : V extends number ? number
  : V extends boolean ? boolean
  : V extends readonly (infer U)[] ? Exact<U>[]
  : V extends object ? { [K in keyof V]-?: Exact<Exclude<V[K], undefined>> }
  : V;
// Keys as declared (optional ones may be absent), any value: a key Go leaves
// out of an empty value must be optional here. (A nil slice or pointer is null.)
type Shape<V> = unknown extends V ? unknown
  : V extends readonly (infer U)[] ? Shape<U>[] | null
  : V extends object ? { [K in keyof V]: Shape<Exclude<V[K], undefined>> | null }
  : unknown;
`;

/** A fixture to check: its label in errors, the interface, the JSON. */
interface Entry {
  label: string;
  type: string;
  json: string;
  /** Shape: the empty value's check (which keys may be absent); else every key required. */
  shape?: boolean;
}

const fileEntries = (): Entry[] => [
  ...fixtures.map((name) => ({ label: name, type: name, json: readFileSync(join(fixtureDir, `${name}.json`), 'utf8').trim() })),
  ...fixtures.map((name) => ({
    label: `zero/${name}`,
    type: name,
    json: readFileSync(join(fixtureDir, 'zero', `${name}.json`), 'utf8').trim(),
    shape: true,
  })),
];

/** The check program's source: one typed constant per entry, and the line each starts on. */
function checkSource(entries: Entry[]): { text: string; starts: { label: string; line: number }[] } {
  let text = PRELUDE;
  const starts: { label: string; line: number }[] = [];
  entries.forEach((e, i) => {
    starts.push({ label: e.label, line: text.split('\n').length - 1 });
    text += `export const _${i}: ${e.shape ? 'Shape' : 'Exact'}<T.${e.type}> = ${e.json};\n`;
  });
  return { text, starts };
}

/** Type-checks the entries against types.ts; the errors by entry label. */
function typeCheck(entries: Entry[]): Map<string, string[]> {
  const { text, starts } = checkSource(entries);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, ...rest) =>
    file === checkFile ? ts.createSourceFile(file, text, lang) : getSourceFile(file, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === checkFile || fileExists(file);
  const program = ts.createProgram([checkFile], options, host);
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    let label = 'types.ts';
    if (d.file?.fileName === checkFile && d.start !== undefined) {
      const line = d.file.getLineAndCharacterOfPosition(d.start).line;
      label = [...starts].reverse().find((s) => s.line <= line)?.label ?? 'prelude';
    } else if (d.file) {
      label = d.file.fileName;
    }
    errors.set(label, [...(errors.get(label) ?? []), message]);
  }
  return errors;
}

/** The exported interfaces and type aliases of object shape in types.ts. */
function declaredInterfaces(): string[] {
  const src = ts.createSourceFile(typesFile, readFileSync(typesFile, 'utf8'), ts.ScriptTarget.ES2022);
  return src.statements
    .filter((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s))
    .filter((s) => s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
    .map((s) => s.name.text)
    .sort();
}

describe('the DTO types follow the Go types', { timeout: 60_000 }, () => {
  const errors = typeCheck(fileEntries());

  it('the check itself compiles', () => {
    expect(errors.get('prelude') ?? []).toEqual([]);
    expect(errors.get('types.ts') ?? []).toEqual([]);
  });

  it.each(fixtures)('%s', (name) => {
    expect(errors.get(name) ?? [], `testdata/${name}.json (written by Go) against types.ts ${name}`).toEqual([]);
    const zero = `zero/${name}`;
    expect(errors.get(zero) ?? [], `testdata/${zero}.json (Go's empty ${name}): a key it leaves out must be optional in types.ts`).toEqual([]);
  });

  it('every interface of types.ts has a fixture from Go', () => {
    const missing = declaredInterfaces().filter((n) => !frontendOnly.has(n) && !fixtures.includes(n));
    expect(missing, 'add the Go type to dtoFixtures in app/dto_fixtures_test.go').toEqual([]);
  });

  it('fails on drift: a key more, a key less, a type changed', () => {
    const json = JSON.parse(readFileSync(join(fixtureDir, 'TopValue.json'), 'utf8')) as Record<string, unknown>;
    const { count: _count, ...lacking } = json;
    void _count;
    const changed = { more: { ...json, added: 1 }, less: lacking, type: { ...json, count: 'many' } };
    const found = typeCheck(Object.entries(changed).map(([label, v]) => ({ label, type: 'TopValue', json: JSON.stringify(v) })));
    // A key Go leaves out when empty, required in types.ts: count is required in TopValue.
    const omitted = typeCheck([{ label: 'omitted', type: 'TopValue', json: JSON.stringify({ value: '' }), shape: true }]);
    for (const label of Object.keys(changed)) expect(found.get(label) ?? [], label).not.toEqual([]);
    expect([...found.keys()].sort()).toEqual(Object.keys(changed).sort());
    expect(omitted.get('omitted') ?? []).not.toEqual([]);
  });
});
