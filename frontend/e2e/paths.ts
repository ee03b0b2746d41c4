import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (frontend/e2e/../..). */
export const REPO = resolve(__dirname, '..', '..');
export const BIN_DIR = join(tmpdir(), 'loupe-e2e-bin');
export const LOUPE_BIN = process.env['LOUPE_E2E_BIN'] ?? join(BIN_DIR, 'loupe');
export const FAKEMODEL_BIN = join(BIN_DIR, 'fakemodel');
export const FIXTURES = join(__dirname, 'fixtures');
export const SCREENSHOTS = join(__dirname, 'screenshots');
