// Keyboard only: open a file, reach a dataset and its menu, move in the menu
// with the arrow keys, open a dialog from it and leave with Esc, ask a
// question and hear the answer in the live region — no mouse anywhere.
import type { Locator, Page } from '@playwright/test';
import { join } from 'node:path';
import { expect, shot, test } from './backend';
import { FIXTURES } from './paths';
import { agencies } from './scripts';

const CSV = join(FIXTURES, 'service_requests.csv');

/** Presses Tab until the locator has focus (at most n times). */
async function tabTo(page: Page, target: Locator, n = 40): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test.describe('keyboard only', () => {
  test.use({ script: agencies });

  test('open, browse, use menus and dialogs, and ask without a mouse', async ({ page, backend }) => {
    await page.goto(backend.url);
    await expect(page.getByTestId('statusbar')).toBeVisible();

    // Ctrl+O: the path dialog takes focus; Tab stays inside it.
    await page.keyboard.press('Control+o');
    const paths = page.getByRole('textbox', { name: 'File paths' });
    await expect(paths).toBeFocused();
    await page.keyboard.type(CSV);
    await page.keyboard.press('Tab');
    await expect(page.getByText('Import options for CSV and TSV files')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Open', exact: true })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(paths).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
    await expect(item).toContainText('1,000 rows');

    // The dataset row is one button; its menu is a button beside it, not inside it.
    const open = item.getByRole('button', { name: /^service_requests 1,000 rows/ });
    await tabTo(page, open);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'service_requests', level: 1 })).toBeVisible();
    await expect(open).toHaveAttribute('aria-current', 'page');

    // The menu: focus moves into it, arrows move, Esc returns focus to the button.
    const menuButton = item.getByRole('button', { name: 'Actions for service_requests' });
    await page.keyboard.press('Tab');
    await expect(menuButton).toBeFocused();
    await expect(menuButton).toHaveCSS('opacity', '1');
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'Actions for service_requests' });
    await expect(menu.getByRole('menuitem', { name: 'Preview' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(menu.getByRole('menuitem', { name: 'Profile' })).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'Remove' })).toBeFocused();
    await page.keyboard.press('Home');
    await expect(menu.getByRole('menuitem', { name: 'Preview' })).toBeFocused();
    await shot(page, 'keyboard-menu');
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(menuButton).toBeFocused();

    // ↓ on the button opens the menu too; Enter on an item acts.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('profile')).toContainText('days_to_close');
    await expect(menuButton).toBeFocused();

    // A dialog from the menu: focus inside, Esc closes, focus back on the menu button.
    await page.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'Remove' })).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'Notes…' })).toBeFocused();
    await page.keyboard.press('Enter');
    const notes = page.getByTestId('notes-dialog');
    await expect(notes.getByRole('textbox', { name: 'Table note' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(notes).toBeHidden();
    await expect(menuButton).toBeFocused();

    // Ask: Ctrl+K, type, Enter; the live region says the answer once it is complete.
    await page.keyboard.press('Control+k');
    await expect(page.getByRole('textbox', { name: 'Question' })).toBeFocused();
    await page.keyboard.type('Which agency gets the most requests?');
    await page.keyboard.press('Enter');
    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    const live = page.getByTestId('announcer');
    await expect(live).toHaveText(/^Answer: The Department of Finance \(DOF\) handles the most requests.*2 findings: DOF received the most requests; DOT is second$/);
    await expect(page.getByTestId('announcer')).toHaveAttribute('aria-live', 'polite');

    // The conversation search shows where focus is.
    const search = page.getByRole('searchbox', { name: 'Search conversations' });
    await tabTo(page, search, 80);
    const ring = await page.locator('.side-search').evaluate((el) => getComputedStyle(el).boxShadow);
    expect(ring).not.toBe('none');
    await shot(page, 'keyboard-search-focus');
  });
});
