import { defineConfig } from '@playwright/test';

// End-to-end tests of the UI against the real Go backend (`loupe serve`)
// and the scripted fake model (agent/llm/fake/fakemodel): see e2e/backend.ts.
// Chromium is the system's (Debian's /usr/bin/chromium) unless
// PLAYWRIGHT_CHROMIUM says otherwise: Playwright's own download needs a
// network these machines do not have.
export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env['PLAYWRIGHT_CHROMIUM'] ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'off',
  },
});
