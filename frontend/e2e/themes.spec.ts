// The main views in the light and the dark theme, by the OS's preference and
// forced by the setting: screenshots into e2e/screenshots/theme-*.png (or the
// folder LOUPE_THEME_SHOTS names), to compare a change of the styles before
// and after. Each view is also checked to be drawn in its theme's colours.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openByPath, test } from './backend';
import { FIXTURES, SCREENSHOTS } from './paths';
import { agencies } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');
const DIR = process.env['LOUPE_THEME_SHOTS'] ?? SCREENSHOTS;

/** The page's background colour as the browser computed it. */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const LIGHT_BG = 'rgb(247, 248, 250)';
const DARK_BG = 'rgb(17, 19, 24)';

async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  // No caret blinking or hover state in the picture.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(DIR, `theme-${name}.png`), caret: 'hide', animations: 'disabled' });
}

test.describe('themes', () => {
  test.use({ script: agencies });

  for (const scheme of ['light', 'dark'] as const) {
    test(`the main views in the ${scheme} theme`, async ({ page, backend }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(backend.url);
      await expect(page.getByRole('heading', { name: 'Loupe', level: 1 })).toBeVisible();
      expect(await background(page)).toBe(scheme === 'dark' ? DARK_BG : LIGHT_BG);
      await snap(page, `${scheme}-welcome`);

      await openByPath(page, CSV);
      const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
      await expect(item).toContainText('1,000 rows');
      await expect(page.getByRole('heading', { name: 'What would you like to know?' })).toBeVisible();
      await snap(page, `${scheme}-data-loaded`);

      await item.click();
      await expect(page.getByRole('gridcell', { name: '100000', exact: true })).toBeVisible();
      await snap(page, `${scheme}-dataset-preview`);
      await page.getByRole('tab', { name: 'Profile' }).click();
      await expect(page.getByTestId('profile')).toContainText('days_to_close');
      await snap(page, `${scheme}-dataset-profile`);

      await page.getByRole('button', { name: 'New conversation' }).click();
      const box = page.getByRole('textbox', { name: 'Question' });
      await box.fill('Which agency gets the most requests?');
      await box.press('Enter');
      const turn = page.getByTestId('turn').last();
      await expect(turn).toHaveAttribute('data-status', 'done');
      await expect(turn.getByTestId('chart').locator('svg .mark-rect path').first()).toBeVisible();
      await snap(page, `${scheme}-chat-answer`);
      await turn.getByTestId('findings').getByRole('button', { name: 'q1' }).first().click();
      const q1 = turn.locator('[id$="-q1"]');
      await expect(q1.getByTestId('grid-count')).toContainText('8 rows');
      await expect(q1).toBeInViewport();
      await page.waitForTimeout(500); // the scroll to it is smooth
      await snap(page, `${scheme}-chat-evidence`);

      await turn.getByRole('button', { name: /Generate report/ }).click();
      await expect(page.getByTestId('report').locator('img.report__chart')).toBeVisible();
      await snap(page, `${scheme}-report`);

      await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
      await snap(page, `${scheme}-settings`);

      await page.getByRole('region', { name: 'Databases' }).getByRole('button', { name: 'Connect one' }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await snap(page, `${scheme}-connection-dialog`);
    });
  }

  // The setting wins over the OS: dark on a light desktop and light on a dark one.
  for (const [os, setting] of [['light', 'dark'], ['dark', 'light']] as const) {
    test(`the ${setting} setting on a ${os} desktop`, async ({ page, backend }) => {
      const settings = await backend.call<Record<string, unknown>>('GetSettings');
      await backend.call('SaveSettings', { ...settings, theme: setting });
      await page.emulateMedia({ colorScheme: os });
      await page.goto(backend.url);
      await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
      await expect.poll(() => background(page)).toBe(setting === 'dark' ? DARK_BG : LIGHT_BG);
      await snap(page, `forced-${setting}-on-${os}`);
    });
  }
});
