// Builds the two Go programs the e2e tests run, once per `playwright test`:
// the loupe binary (for `loupe serve`) and the fake model server. Set
// LOUPE_E2E_BIN to use a loupe binary built elsewhere. The frontend they
// serve is frontend/dist: `npm run e2e` builds it first.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN_DIR, FAKEMODEL_BIN, LOUPE_BIN, REPO } from './paths';

export default function globalSetup(): void {
  if (!existsSync(join(REPO, 'frontend', 'dist', 'index.html'))) {
    throw new Error('frontend/dist has no build: run `npm run build` first (npm run e2e does)');
  }
  execFileSync('mkdir', ['-p', BIN_DIR]);
  if (!process.env['LOUPE_E2E_BIN']) {
    execFileSync('go', ['build', '-o', LOUPE_BIN, '.'], { cwd: REPO, stdio: 'inherit' });
  }
  execFileSync('go', ['build', '-o', FAKEMODEL_BIN, './agent/llm/fake/fakemodel'], { cwd: REPO, stdio: 'inherit' });
}
