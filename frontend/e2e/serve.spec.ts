// `loupe serve`'s token in a real browser: the page takes it from the
// address it printed, clears it from the address bar, keeps it across a
// reload, and sends it with every call and the event stream; a page opened
// without it gets refusals that say what to do.
import { test, expect, openByPath } from './backend';
import { FIXTURES } from './paths';
import { join } from 'node:path';

test('the page works with the token from the printed address, and never shows it', async ({ page, backend }) => {
  const requests: { url: string; token: string | null }[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/')) requests.push({ url: r.url(), token: r.headers()['x-loupe-token'] ?? null });
  });
  await page.goto(backend.url);
  await expect(page.getByTestId('statusbar')).toBeVisible();
  await expect.poll(() => page.url()).toBe(`${backend.origin}/`);
  expect(await page.evaluate(() => sessionStorage.getItem('loupe.serveToken'))).toBe(backend.token);

  // Events arrive over the token-carrying stream: loading a file streams its progress.
  await openByPath(page, join(FIXTURES, 'service_requests.csv'));
  const item = page.getByTestId('dataset').filter({ hasText: 'service_requests' });
  await expect(item).toContainText('1,000 rows');

  await page.reload();
  await expect(page.getByTestId('statusbar')).toBeVisible();
  await expect(item).toContainText('1,000 rows');

  expect(requests.length).toBeGreaterThan(3);
  expect(requests.some((r) => r.url.endsWith('/api/events'))).toBe(true);
  for (const r of requests) {
    expect(r.token, r.url).toBe(backend.token);
    expect(r.url).not.toContain(backend.token);
  }
});

test('a page opened without the token is refused with what to do', async ({ page, backend }) => {
  const refused: { status: number; body: string }[] = [];
  page.on('response', async (r) => {
    if (r.url().includes('/api/')) refused.push({ status: r.status(), body: await r.text().catch(() => '') });
  });
  await page.goto(backend.origin);
  await expect.poll(() => refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(r.status).toBe(401);
    expect(r.body).toContain('#token=');
  }
  // Another start's token does not open it either.
  expect(await page.evaluate(async (origin) => (await fetch(`${origin}/api/ListChats`, { method: 'POST', body: '[]', headers: { 'X-Loupe-Token': 'A'.repeat(43) } })).status, backend.origin)).toBe(401);
});
