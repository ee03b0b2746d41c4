// Settings' MCP section against the real backend: a TypeScript MCP client
// calls `loupe mcp` (on a workspace of its own, logging into the config
// folder `loupe serve` reads), then the section says Loupe is set up,
// shows each host's snippet with the binary's path, copies it, and lists
// the calls with their status. Its screenshot is docs/screens/settings-mcp.png.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, shot, test } from './backend';
import { FIXTURES, LOUPE_BIN, REPO } from './paths';

test('Settings shows the MCP setup, the snippets and the recent calls', async ({ page, backend, context }) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-mcp-ws-'));
  try {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, { LOUPE_WORKSPACE: '', LOUPE_CONFIG_DIR: backend.configDir });
    execFileSync(LOUPE_BIN, ['load', '--workspace', dir, join(FIXTURES, 'service_requests.csv')], { env });
    const client = new Client({ name: 'claude-ai', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: LOUPE_BIN, args: ['mcp', '--workspace', dir], env, stderr: 'ignore' }));
    await client.callTool({ name: 'list_tables', arguments: {} });
    await client.callTool({ name: 'run_sql', arguments: { sql: 'SELECT count(*) FROM service_requests' } });
    await client.callTool({ name: 'run_sql', arguments: { sql: 'DROP TABLE service_requests' } });
    await client.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(backend.url);
  await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Settings' }).click();
  const section = page.getByTestId('mcp-settings');
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByTestId('mcp-state')).toHaveText(/Set up: an MCP client has called Loupe\./);
  await expect(section.getByTestId('mcp-snippet')).toContainText('"mcpServers"');
  await expect(section.getByTestId('mcp-snippet')).toContainText(`"command": "${LOUPE_BIN}"`);

  const rows = section.getByTestId('mcp-calls').getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText('run_sql');
  await expect(rows.nth(1)).toContainText('refused by the read-only guard');
  await expect(rows.nth(1)).toContainText('claude-ai');
  await expect(rows.nth(2)).toContainText('ok');
  await expect(rows.nth(3)).toContainText('list_tables');

  await section.locator('label', { hasText: 'VS Code' }).click();
  await expect(section.getByTestId('mcp-snippet')).toContainText('"type": "stdio"');
  await section.getByRole('button', { name: 'Copy' }).click();
  await expect(section.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(JSON.parse(copied)).toEqual({ servers: { loupe: { type: 'stdio', command: LOUPE_BIN, args: ['mcp'] } } });

  await section.locator('label', { hasText: 'Claude Desktop' }).click();
  await shot(page, 'settings-mcp-page');
  await section.screenshot({ path: join(REPO, 'docs', 'screens', 'settings-mcp.png') });
});
