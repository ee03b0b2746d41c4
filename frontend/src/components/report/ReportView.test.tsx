import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Report } from '../../api';
import { createStore, initialState } from '../../state/store';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ReportView } from './ReportView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const report: Report = {
  title: 'Orders at a glance',
  markdown: '# Orders at a glance\n\nWest leads.',
  html: '<h1>Orders at a glance</h1>',
  charts: [],
  turns: [1],
  notices: [],
  questions: ['Where do orders come from?'],
};

function renderReport() {
  const store = createStore({ ...initialState(), reports: { run1: { text: '', writing: false, report } } });
  return renderWithStore(<ReportView chatId="chat1" runId="run1" />, store);
}

beforeEach(() => resetFake());

describe('ReportView export menu', () => {
  it.each([
    ['Export PDF', 'pdf', '/home/me/orders-at-a-glance.pdf'],
    ['Export Excel workbook (XLSX)', 'xlsx', '/home/me/orders-at-a-glance.xlsx'],
  ] as const)('%s exports the report as %s and says where', async (item, format, path) => {
    fake.exportReport.mockResolvedValue(path);
    const { store } = renderReport();
    fireEvent.click(screen.getByRole('button', { name: 'More export formats' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: item }));
    await waitFor(() => expect(fake.exportReport).toHaveBeenCalledWith('run1', format));
    await waitFor(() => expect(store.get().notices.map((n) => n.message)).toContain(`Saved the report to ${path}`));
  });

  it('says nothing when the save dialog is canceled, and why when the export fails', async () => {
    const { store } = renderReport();
    fireEvent.click(screen.getByRole('button', { name: 'More export formats' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Export PDF' }));
    await waitFor(() => expect(fake.exportReport).toHaveBeenCalledWith('run1', 'pdf'));
    expect(store.get().notices).toHaveLength(0);

    fake.exportReport.mockRejectedValue({ code: 'file', message: '/ro/report.pdf: cannot write the PDF', hint: 'Choose a folder you own.' });
    fireEvent.click(screen.getByRole('button', { name: 'More export formats' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Export Excel workbook (XLSX)' }));
    await waitFor(() =>
      expect(store.get().notices.map((n) => n.message)).toContain('Could not export the report: /ro/report.pdf: cannot write the PDF'),
    );
  });

  it('offers the menu only once the report is written', () => {
    const store = createStore({ ...initialState(), reports: { run1: { text: '# Orders', writing: true } } });
    renderWithStore(<ReportView chatId="chat1" runId="run1" />, store);
    expect(screen.queryByRole('button', { name: 'More export formats' })).not.toBeInTheDocument();
  });
});
