// A tool added as its package plus one registration line (find_outliers)
// shows in the trace as its Spec says, with its result drawn by display
// kind, live and after a reload.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openByPath, test, type Script } from './backend';
import { FIXTURES } from './paths';

const CSV = join(FIXTURES, 'service_requests.csv');

const outliers: Script = {
  turns: [
    { tool_calls: [{ name: 'find_outliers', args: { table: 'service_requests', column: 'days_to_close' } }] },
    {
      content:
        'A few requests took far longer to close than the rest.\n\nFindings:\n- Some requests stayed open far beyond the usual time [q1]',
    },
  ],
};

/** The IQR outliers of days_to_close, counted here from the file (linear quantiles, as DuckDB's quantile_cont). */
function expectedOutliers(): number {
  const lines = readFileSync(CSV, 'utf8').trim().split('\n');
  const col = lines[0]!.split(',').indexOf('days_to_close');
  const xs = lines
    .slice(1)
    .map((l) => l.split(',')[col])
    .filter((v): v is string => v !== undefined && v !== '')
    .map(Number)
    .sort((a, b) => a - b);
  const q = (p: number) => {
    const pos = p * (xs.length - 1);
    const lo = Math.floor(pos);
    return xs[lo]! + (pos - lo) * (xs[Math.ceil(pos)]! - xs[lo]!);
  };
  const [q1, q3] = [q(0.25), q(0.75)];
  return xs.filter((x) => x < q1 - 1.5 * (q3 - q1) || x > q3 + 1.5 * (q3 - q1)).length;
}

test.describe('a tool described by its Spec', () => {
  test.use({ script: outliers });

  test('find_outliers is named, cited and drawn as a table, and stays so after a reload', async ({ page, backend }) => {
    const n = expectedOutliers();
    expect(n).toBeGreaterThan(0);
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which requests took unusually long?');
    await box.press('Enter');

    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await expect(turn.getByText('Looked for outliers in service_requests')).toBeVisible();
    await expect(turn.getByText(new RegExp(`^${n} outliers of \\d+ \\(iqr\\)$`))).toBeVisible();

    // The finding cites the tool's result, which opens as a table of the outlier rows.
    await turn.getByTestId('findings').getByRole('button', { name: 'q1' }).first().click();
    const q1 = turn.locator('[id$="-q1"]');
    await expect(q1).toBeInViewport();
    await expect(q1.getByTestId('sql')).toContainText('days_to_close');
    await expect(q1.getByTestId('grid-count')).toContainText(`${n} rows`);

    await page.reload();
    await page.getByTestId('chat').filter({ hasText: 'Which requests took unusually long?' }).click();
    const restored = page.getByTestId('turn').last();
    await expect(restored.getByText('Looked for outliers in service_requests')).toBeVisible();
  });
});
