import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openByPath, test, type Script } from './backend';
import { FIXTURES } from './paths';

const CSV = join(FIXTURES, 'service_requests.csv');
const byAgency = 'SELECT agency, count(*) AS requests FROM service_requests GROUP BY agency ORDER BY requests DESC LIMIT 8';

const conversation: Script = {
  turns: [
    { tool_calls: [{ name: 'run_sql', args: { sql: byAgency, purpose: 'requests per agency' } }] },
    {
      tool_calls: [
        {
          name: 'create_chart',
          args: {
            title: 'Requests by agency',
            sql: byAgency,
            spec: { mark: 'bar', encoding: { x: { field: 'agency', type: 'nominal' }, y: { field: 'requests', type: 'quantitative' } } },
          },
        },
      ],
    },
    { content: 'DOF handles the most requests.\n\nFindings:\n- DOF received the most requests [q1, c1]' },
    {
      content:
        '# Where the city’s requests go — résumé\n\n## Summary\n\nDOF receives the most requests [q1, c1].\n\n{{chart:c1}}\n\n' +
        '## Agencies\n\n{{table:q1}}\n\n## Method\n\nOne aggregate query (q1).',
    },
  ],
};

test.describe('report exports beside Markdown and HTML', () => {
  test.use({ script: conversation });

  test('the report view exports PDF pages and an Excel workbook Loupe reads back', async ({ page, backend }) => {
    await page.goto(backend.url);
    await openByPath(page, CSV);
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Which agency gets the most requests?');
    await box.press('Enter');
    const turn = page.getByTestId('turn').first();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await turn.getByRole('button', { name: /Generate report/ }).click();
    await expect(page.getByTestId('report').getByRole('heading', { name: /Where the city’s requests go/ })).toBeVisible();

    // PDF: through the menu; the server saves it where its save dialog points.
    await page.getByRole('button', { name: 'More export formats' }).click();
    await page.getByRole('menuitem', { name: 'Export PDF' }).click();
    const pdf = join(backend.saveDir, 'where-the-city-s-requests-go-r-sum.pdf');
    await expect(page.getByText(`Saved the report to ${pdf}`)).toBeVisible();
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const text = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    const pages = text.split('\f').filter((p) => p.trim() !== '');
    expect(text).toContain('Where the city’s requests go — résumé');
    expect(text).toContain('Figure 1. Requests by agency');
    expect(text).toContain('Table 1. requests per agency (q1)');
    // Summary, Agencies, Method and the appendix each open a page.
    expect(pages.map((p) => p.trim().split('\n')[0]!.trim())).toEqual(
      expect.arrayContaining(['Agencies', 'Method', 'Appendix: queries']),
    );

    // XLSX: the report's text and one sheet per table, opened again by Loupe.
    await page.getByRole('button', { name: 'More export formats' }).click();
    await page.getByRole('menuitem', { name: 'Export Excel workbook (XLSX)' }).click();
    const xlsx = join(backend.saveDir, 'where-the-city-s-requests-go-r-sum.xlsx');
    await expect(page.getByText(`Saved the report to ${xlsx}`)).toBeVisible();
    const opened = await backend.call<{ datasets: { name: string; part: string; rows: number; columns: { name: string; type: string }[] }[] }[]>(
      'OpenFiles',
      [xlsx],
    );
    const sheets = opened[0]!.datasets;
    expect(sheets.map((d) => d.part)).toEqual(['Report', 'Table 1 (q1)']);
    const table = sheets[1]!;
    expect(table.columns.map((c) => `${c.name} ${c.type}`)).toEqual(['agency VARCHAR', 'requests BIGINT']);
    expect(table.rows).toBeGreaterThan(1);
    expect(backend.savedFiles().sort()).toEqual([pdf, xlsx].map((p) => p.slice(backend.saveDir.length + 1)).sort());
  });
});
