// How fast the UI draws what the agent makes: a 10,000-point chart (the
// most create_chart takes), timed inside the page by ChartView's
// "loupe:chart-render" measure (vega-embed's parse, dataflow and draw).
// `make bench` prints the figure against its 500 ms target; the test
// fails only well above it, since CI machines are shared and slow.
import { join } from 'node:path';
import { expect, openByPath, shot, test, type Script } from './backend';
import { FIXTURES } from './paths';

const POINTS = 'SELECT range AS i, round(sin(range / 300.0) * 40 + range / 250.0 + random() * 8, 2) AS value FROM range(10000)';

const tenThousand: Script = {
  turns: [
    {
      tool_calls: [
        {
          name: 'create_chart',
          args: {
            title: 'Ten thousand readings',
            sql: POINTS,
            spec: {
              mark: { type: 'point', size: 8 },
              encoding: { x: { field: 'i', type: 'quantitative' }, y: { field: 'value', type: 'quantitative' } },
            },
          },
        },
      ],
    },
    { content: 'The readings drift upward with a slow wave.\n\nFindings:\n- 10,000 readings drawn [c1]' },
  ],
};

test.describe('performance', () => {
  test.use({ script: tenThousand });

  test('a 10,000-point chart renders on a canvas in well under a second', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, join(FIXTURES, 'service_requests.csv'));
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Plot all ten thousand readings');
    await box.press('Enter');

    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await expect(turn.getByTestId('chart').locator('canvas').first()).toBeVisible();
    const renders = await page.evaluate(() =>
      performance
        .getEntriesByName('loupe:chart-render')
        .map((e) => ({ ms: e.duration, rows: (e as PerformanceMeasure).detail?.rows as number })),
    );
    const big = renders.filter((r) => r.rows === 10000);
    expect(big.length).toBeGreaterThan(0);
    const first = Math.round(big[0]!.ms);
    console.log(`perf: chart renders in the page: ${renders.map((r) => `${r.rows} rows ${Math.round(r.ms)} ms`).join(", ")}`);
    console.log(`chart: 10,000 points rendered in ${first} ms (first render in the page; target <= 500 ms)`);
    await shot(page, 'chart-10k');
    expect(first).toBeLessThan(2000);
  });
});
