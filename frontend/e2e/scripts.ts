// Fake-model scripts for the e2e tests: what the model "says", turn by
// turn (one turn per chat request). The data is e2e/fixtures/
// service_requests.csv, a made-up sample of 1,000 city service requests.
import type { Script } from './backend';

const bySQL = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 8';

/** Explore, chart, answer with findings; then write the report. */
export const agencies: Script = {
  turns: [
  { thinking: 'Look at the table first.', tool_calls: [{ name: 'describe_table', args: { table: 'service_requests' } }] },
  { content: 'Counting the requests per agency.', tool_calls: [{ name: 'run_sql', args: { sql: bySQL, purpose: 'requests per agency' } }] },
  {
    tool_calls: [
      {
        name: 'create_chart',
        args: {
          title: 'Requests by agency',
          sql: bySQL,
          spec: {
            mark: 'bar',
            encoding: {
              x: { field: 'agency', type: 'nominal', sort: '-y' },
              y: { field: 'requests', type: 'quantitative' },
            },
          },
        },
      },
    ],
  },
  {
    content:
      'The Department of Finance (DOF) handles the most requests, almost twice the Department of Transportation.\n\nFindings:\n- DOF received the most requests [q1, c1]\n- DOT is second [q1]',
    chunks: 12,
  },
  {
    content:
      '# DOF fields most service requests\n\n## Summary\n\nDOF handled the most requests in this sample, DOT came second.\n\n## Findings\n\n{{chart:c1}}\n\n{{table:q1}}\n\n## Method\n\nOne aggregate query over service_requests (q1).',
  },
  ],
};

/** Ask which period is meant; after the answer, one query and an answer. */
export const clarify: Script = {
  turns: [
  { tool_calls: [{ name: 'ask_user', args: { question: 'Which borough do you mean?', options: ['BROOKLYN', 'QUEENS', 'All boroughs'] } }] },
  {
    tool_calls: [
      {
        name: 'run_sql',
        args: { sql: 'SELECT borough, count(*) AS requests FROM service_requests GROUP BY borough ORDER BY requests DESC', purpose: 'requests per borough' },
      },
    ],
  },
  { content: 'Across all boroughs the requests are spread fairly evenly.\n\nFindings:\n- No borough has more than a quarter of the requests [q1]' },
  ],
};

/** A query that runs for many seconds, to be stopped. */
export const slow: Script = {
  turns: [
  {
    content: 'This needs a big scan.',
    tool_calls: [
      {
        name: 'run_sql',
        args: { sql: 'SELECT count(*) AS n FROM range(200000) a(x), range(200000) b(y) WHERE a.x + b.y = 7', purpose: 'a very long scan' },
      },
    ],
  },
  { content: 'Done.' },
  ],
};

/** One count, then an answer with a number no result holds, kept after the challenge. */
const unbackedAnswer = 'There are 1,000 requests in the sample, and 98,765 complaints behind them.';
export const unbacked: Script = {
  turns: [
    { tool_calls: [{ name: 'run_sql', args: { sql: 'SELECT count(*) AS n FROM service_requests', purpose: 'count the requests' } }] },
    { content: unbackedAnswer },
    { content: unbackedAnswer },
  ],
};
