import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root (frontend/e2e/../..). */
export const REPO = resolve(here, '..', '..');
export const BIN_DIR = join(tmpdir(), 'loupe-e2e-bin');
export const LOUPE_BIN = process.env['LOUPE_E2E_BIN'] ?? join(BIN_DIR, 'loupe');
export const FAKEMODEL_BIN = join(BIN_DIR, 'fakemodel');
export const FIXTURES = join(here, 'fixtures');
export const SCREENSHOTS = join(here, 'screenshots');
