import { act, fireEvent, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MCPSetup } from '../../api';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { McpSettings } from './McpSettings';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const bin = '/opt/Loupe/loupe';
const claude = `{\n  "mcpServers": {\n    "loupe": {\n      "command": "${bin}",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}`;
const vscode = `{\n  "servers": {\n    "loupe": {\n      "type": "stdio",\n      "command": "${bin}",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}`;

function setup(over: Partial<MCPSetup> = {}): MCPSetup {
  return {
    binary: bin,
    setUp: false,
    hosts: [
      { id: 'claude', name: 'Claude Desktop', configPath: '/home/u/.config/Claude/claude_desktop_config.json', where: 'Settings → Developer → Edit Config', configured: false, snippet: claude },
      { id: 'vscode', name: 'VS Code', configPath: '/home/u/.config/Code/User/mcp.json', where: 'MCP: Open User Configuration', configured: false, snippet: vscode },
      { id: 'cursor', name: 'Cursor', configPath: '/home/u/.cursor/mcp.json', where: 'Cursor Settings → MCP', configured: false, snippet: claude },
    ],
    calls: [],
    callLog: '/home/u/.config/loupe/mcp-calls.jsonl',
    ...over,
  };
}

beforeEach(() => {
  resetFake();
});

describe('McpSettings', () => {
  it('says it is not set up and shows each host’s snippet with the binary, copied by Copy', async () => {
    fake.mcpSetup.mockResolvedValue(setup());
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderWithStore(<McpSettings />);
    expect(await screen.findByTestId('mcp-state')).toHaveTextContent('Not set up yet');
    expect(screen.getByTestId('mcp-snippet')).toHaveTextContent(`"command": "${bin}"`);
    expect(screen.getByTestId('mcp-snippet')).toHaveTextContent('"mcpServers"');
    expect(screen.getByText('No MCP client has called Loupe yet.')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('radio', { name: 'VS Code' }));
    expect(screen.getByTestId('mcp-snippet')).toHaveTextContent('"type": "stdio"');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Copy' })));
    expect(writeText).toHaveBeenCalledWith(vscode);
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('says which host lists Loupe and shows the recent calls with their status; Refresh reads again', async () => {
    fake.mcpSetup.mockResolvedValue(
      setup({
        setUp: true,
        hosts: setup().hosts.map((h) => (h.id === 'cursor' ? { ...h, configured: true } : h)),
        calls: [
          { at: '2026-11-26T01:02:03Z', tool: 'run_sql', client: 'claude-ai', status: 'refused', ms: 3, error: 'The query was refused' },
          { at: '2026-11-26T01:02:00Z', tool: 'ask', client: 'claude-ai', status: 'ok', ms: 4200 },
        ],
      }),
    );
    renderWithStore(<McpSettings />);
    expect(await screen.findByTestId('mcp-state')).toHaveTextContent('Set up: Cursor lists Loupe.');
    const rows = screen.getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('run_sql');
    expect(rows[1]).toHaveTextContent('refused by the read-only guard');
    expect(rows[1]).toHaveAttribute('title', 'The query was refused');
    expect(rows[2]).toHaveTextContent('4.2 s');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Refresh' })));
    expect(fake.mcpSetup).toHaveBeenCalledTimes(2);
  });

  it('says when the setup cannot be read', async () => {
    fake.mcpSetup.mockRejectedValue(new FakeApiError('file', 'mcp-calls.jsonl cannot be read', 'Check the config folder.'));
    renderWithStore(<McpSettings />);
    expect(await screen.findByText('The MCP setup could not be read')).toBeInTheDocument();
  });
});
