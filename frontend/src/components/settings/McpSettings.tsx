import { useCallback, useEffect, useState } from 'react';
import * as api from '../../api';
import type { MCPCall, MCPSetup } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import './settings.css';

/** What a call's status says, in words. */
const STATUS: Record<string, string> = {
  ok: 'ok',
  error: 'error',
  refused: 'refused by the read-only guard',
  privacy: 'kept back by the privacy level',
  canceled: 'canceled',
};

/**
 * The MCP section of Settings: whether Loupe is set up as an MCP server
 * for other agents (a host lists it, or a client has called it), the
 * configuration snippet of Claude Desktop, VS Code and Cursor with this
 * binary's path filled in and a Copy button, and the recent calls with
 * their status (the `loupe mcp` process logs them; Refresh reads again).
 */
export function McpSettings() {
  const [setup, setSetup] = useState<MCPSetup | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [host, setHost] = useState('claude');
  const [copied, setCopied] = useState('');

  const load = useCallback(() => {
    api.mcpSetup().then(
      (s) => {
        setSetup(s);
        setProblem(null);
      },
      (err: unknown) => setProblem(problemOf(err)),
    );
  }, []);
  useEffect(load, [load]);

  const chosen = setup?.hosts.find((h) => h.id === host) ?? setup?.hosts[0];
  const listed = setup?.hosts.filter((h) => h.configured).map((h) => h.name) ?? [];

  return (
    <section className="card" data-testid="mcp-settings" aria-labelledby="mcp-title">
      <h2 className="card__title" id="mcp-title">
        Use Loupe from other agents (MCP)
      </h2>
      <p className="field__note">
        Claude Desktop, VS Code, Cursor and other MCP hosts can call Loupe&rsquo;s tools — list and describe tables, run read-only SQL,
        profile, chart, ask Loupe&rsquo;s agent — through its read-only guard. Their model gets your data at the privacy level given to{' '}
        <code>loupe mcp</code> (masked unless you say otherwise), and what they are sent is kept in the outbox.
      </p>
      {problem && <ErrorNote title="The MCP setup could not be read" problem={problem} onDismiss={() => setProblem(null)} />}
      {!setup && !problem && <div className="field__note">Loading…</div>}
      {setup && (
        <>
          <div className={setup.setUp ? 'check check--ok' : 'check check--bad'} data-testid="mcp-state">
            <span className="dot" />{' '}
            {setup.setUp
              ? listed.length > 0
                ? `Set up: ${listed.join(', ')} ${listed.length === 1 ? 'lists' : 'list'} Loupe.`
                : 'Set up: an MCP client has called Loupe.'
              : 'Not set up yet: add the snippet below to a host, then restart it.'}
          </div>
          <div className="segmented" role="radiogroup" aria-label="MCP host">
            {setup.hosts.map((h) => (
              <label key={h.id} className={chosen?.id === h.id ? 'segmented__item segmented__item--on' : 'segmented__item'}>
                <input type="radio" name="mcp-host" checked={chosen?.id === h.id} onChange={() => setHost(h.id)} />
                {h.name}
                {h.configured ? ' ✓' : ''}
              </label>
            ))}
          </div>
          {chosen && (
            <div className="mcp__host">
              <div className="field__note">
                {chosen.where}. The file: <code title={chosen.configPath}>{chosen.configPath}</code>
              </div>
              <pre className="mcp__snippet" data-testid="mcp-snippet" aria-label={`${chosen.name} configuration`}>
                {chosen.snippet}
              </pre>
              <div className="mcp__actions">
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => {
                    void navigator.clipboard?.writeText(chosen.snippet).then(() => setCopied(chosen.id));
                  }}
                >
                  <Icon name={copied === chosen.id ? 'check' : 'copy'} size={14} /> {copied === chosen.id ? 'Copied' : 'Copy'}
                </button>
              </div>
              <div className="field__note">
                Another workspace: add <code>&quot;--workspace&quot;, &quot;FOLDER&quot;</code> to <code>args</code>; a database:{' '}
                <code>&quot;--connection&quot;, &quot;NAME&quot;</code>; what the host&rsquo;s model sees: <code>&quot;--privacy&quot;, &quot;schema&quot;</code>.
              </div>
            </div>
          )}
          <div className="mcp__calls-head">
            <h3 className="mcp__subtitle">Recent calls</h3>
            <button type="button" className="button button--ghost button--small" onClick={load}>
              Refresh
            </button>
          </div>
          {setup.calls.length === 0 ? (
            <div className="field__note" data-testid="mcp-no-calls">
              No MCP client has called Loupe yet.
            </div>
          ) : (
            <table className="mcp__calls" data-testid="mcp-calls">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Tool</th>
                  <th>Client</th>
                  <th>Status</th>
                  <th className="num">Time</th>
                </tr>
              </thead>
              <tbody>{setup.calls.map((c, i) => <CallRow key={`${c.at}-${i}`} call={c} />)}</tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

function CallRow({ call }: { call: MCPCall }) {
  const at = new Date(call.at);
  return (
    <tr className={`mcp__call mcp__call--${call.status}`} title={call.error ?? ''}>
      <td>{Number.isNaN(at.getTime()) ? call.at : at.toLocaleString()}</td>
      <td>
        <code>{call.tool}</code>
      </td>
      <td>{call.client}</td>
      <td className="mcp__status">{STATUS[call.status] ?? call.status}</td>
      <td className="num">{call.ms < 1000 ? `${call.ms} ms` : `${(call.ms / 1000).toFixed(1)} s`}</td>
    </tr>
  );
}
