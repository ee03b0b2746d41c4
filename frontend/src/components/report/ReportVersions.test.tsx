import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Report, ReportVersion } from '../../api';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ReportVersions } from './ReportVersions';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const report = (markdown: string): Report => ({
  title: 'North leads sales',
  markdown,
  html: '',
  charts: [],
  turns: [1],
  notices: [],
  questions: ['Which region sells most?'],
});

const v = (number: number, what: string, of = 0): ReportVersion => ({
  number,
  title: 'North leads sales',
  created: '2026-11-26T04:30:00Z',
  of,
  what,
});

describe('ReportVersions', () => {
  it('refreshes the report and shows the new version in the report view', async () => {
    fake.reportVersions.mockResolvedValueOnce([v(1, 'written with qwen3:8b')]);
    const refreshed = report('# North leads sales\n\n## What changed\n\n- q1, north, total: 17 → 19');
    fake.refreshReport.mockResolvedValue(refreshed);
    fake.reportVersions.mockResolvedValue([v(1, 'written with qwen3:8b'), v(2, 'refresh of 1: 1 number moved', 1)]);
    const { store } = renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# North leads sales')} busy={false} />);
    expect(await screen.findByText('1 version')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Refresh on current data' }));
    expect(screen.getByRole('button', { name: 'Refreshing…' })).toBeDisabled();
    await waitFor(() => expect(store.get().reports['r1']?.report).toBe(refreshed));
    expect(fake.refreshReport).toHaveBeenCalledWith('c1', 'r1');
    expect(screen.getByRole('button', { name: 'Refresh on current data' })).toBeEnabled();
    expect(store.get().notices.at(-1)?.message).toMatch(/What changed/);
  });

  it('says why a refresh failed', async () => {
    fake.refreshReport.mockRejectedValue(new FakeApiError('invalid', 'This answer has no report to refresh.', 'Write the report first.'));
    const { store } = renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy={false} />);
    fireEvent.click(screen.getByRole('button', { name: 'Refresh on current data' }));
    await waitFor(() => expect(store.get().notices.at(-1)?.message).toBe('Could not refresh the report: This answer has no report to refresh.'));
  });

  it('stops a refresh on Stop, and says the report is as it was', async () => {
    let reject: (e: unknown) => void = () => undefined;
    fake.refreshReport.mockImplementation(() => new Promise<Report>((_, r) => (reject = r)));
    fake.cancelRefresh.mockImplementation(async () => reject(new FakeApiError('canceled', 'Stopped.', '')));
    const { store } = renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy={false} />);
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Refresh on current data' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Stop' }));
    expect(fake.cancelRefresh).toHaveBeenCalledWith('c1');
    await waitFor(() => expect(store.get().notices.at(-1)?.message).toBe('Stopped the refresh: the report is as it was'));
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Refresh on current data' })).toBeEnabled();
  });

  it('does not refresh while the report is being written', async () => {
    fake.reportVersions.mockResolvedValue([v(1, 'written')]);
    renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy />);
    expect(await screen.findByText('1 version')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh on current data' })).toBeDisabled();
  });

  it('lists the versions and compares the two picked', async () => {
    fake.reportVersions.mockResolvedValue([v(1, 'written with qwen3:8b'), v(2, 'refresh of 1: 2 numbers moved', 1), v(3, 'refresh of 2: no change', 2)]);
    fake.diffReportVersions.mockResolvedValue({
      a: 1,
      b: 3,
      summary: 'Since the previous version, 2 numbers moved.',
      changes: ['q1, north, total: 17 → 19', 'q1, south, total: 12 → 30'],
      lines: [
        { op: ' ', text: '# North leads sales' },
        { op: '-', text: '| north | 17 |' },
        { op: '+', text: '| north | 19 |' },
      ],
    });
    renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy={false} />);
    fireEvent.click(await screen.findByText('3 versions'));
    expect(screen.getByText('refresh of 1: 2 numbers moved')).toBeInTheDocument();
    // The two newest are picked; picking 1 drops the older of them.
    expect(screen.getByRole('checkbox', { name: 'Version 2' })).toBeChecked();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Version 1' }));
    expect(screen.getByRole('checkbox', { name: 'Version 2' })).not.toBeChecked();
    fireEvent.click(screen.getByRole('button', { name: 'Compare versions 1 and 3' }));

    const dialog = await screen.findByTestId('report-diff');
    expect(fake.diffReportVersions).toHaveBeenCalledWith('c1', 1, 3);
    expect(within(dialog).getByRole('heading', { name: 'Version 1 → version 3' })).toBeInTheDocument();
    expect(within(dialog).getByText('q1, north, total: 17 → 19')).toBeInTheDocument();
    const lines = within(dialog).getByLabelText('Lines that differ');
    expect(lines.textContent).toContain('- | north | 17 |');
    expect(lines.textContent).toContain('+ | north | 19 |');
    expect(lines.textContent).not.toContain('# North leads sales');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('report-diff')).not.toBeInTheDocument();
  });

  it('shows an older version whole', async () => {
    fake.reportVersions.mockResolvedValue([v(1, 'written with qwen3:8b'), v(2, 'refresh of 1: 1 number moved', 1)]);
    fake.getReportVersion.mockResolvedValue(report('# North leads sales\n\n| region | total |\n| --- | ---: |\n| north | 17 |\n'));
    renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy={false} />);
    fireEvent.click(await screen.findByText('2 versions'));
    fireEvent.click(screen.getByRole('button', { name: 'Show version 1' }));
    const dialog = await screen.findByTestId('report-version');
    expect(fake.getReportVersion).toHaveBeenCalledWith('c1', 1);
    expect(within(dialog).getByRole('heading', { name: 'Version 1' })).toBeInTheDocument();
    expect(await within(dialog).findByRole('cell', { name: '17' })).toBeInTheDocument();
    // Showing a version does not pick it for comparing.
    expect(screen.getByRole('checkbox', { name: 'Version 1' })).toBeChecked();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('report-version')).not.toBeInTheDocument();
  });

  it('compares only two versions at once', async () => {
    fake.reportVersions.mockResolvedValue([v(1, 'written')]);
    renderWithStore(<ReportVersions chatId="c1" runId="r1" report={report('# T')} busy={false} />);
    fireEvent.click(await screen.findByText('1 version'));
    expect(screen.getByRole('button', { name: 'Pick two versions to compare' })).toBeDisabled();
  });
});
