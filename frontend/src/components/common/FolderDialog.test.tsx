import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoadReport } from '../../api';
import { App } from '../../App';
import { dataset, emit, fake, resetFake } from '../../test/fakeApi';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => {
  resetFake();
});

const stores = { path: '/data/stores', files: 12, skipped: 1, name: 'stores' };

/** openByPath types paths into the path dialog (web mode) and opens them. */
async function openByPath(paths: string) {
  fireEvent.keyDown(window, { key: 'o', ctrlKey: true });
  fireEvent.change(await screen.findByRole('textbox', { name: 'File paths' }), { target: { value: paths } });
  fireEvent.click(screen.getByRole('button', { name: 'Open' }));
}

describe('opening a folder', () => {
  it('asks how, loads the files beside it at once, and opens it as one dataset with its progress and a cancel', async () => {
    fake.foldersAmong.mockResolvedValue([stores]);
    let finish!: (v: LoadReport[]) => void;
    fake.openFolder.mockImplementation(() => new Promise((r) => (finish = r)));
    render(<App />);
    await openByPath('/data/stores\n/data/orders.csv');
    expect(fake.foldersAmong).toHaveBeenCalledWith(['/data/stores', '/data/orders.csv']);
    const dialog = within(await screen.findByTestId('folder-dialog'));
    expect(fake.openFiles).toHaveBeenCalledWith(['/data/orders.csv']);
    expect(dialog.getByRole('heading')).toHaveTextContent('Open the folder stores');
    expect(dialog.getByText(/It holds 12 data files \(and 1 other entry, left out\)/)).toBeInTheDocument();

    fireEvent.click(dialog.getByRole('radio', { name: /One dataset of all files/ }));
    fireEvent.change(dialog.getByRole('textbox', { name: 'Dataset name' }), { target: { value: 'all_stores' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Open' }));
    expect(fake.openFolder).toHaveBeenCalledWith('/data/stores', true, 'all_stores');
    expect(screen.queryByTestId('folder-dialog')).toBeNull();

    act(() => emit('load:progress', { file: '/data/stores', table: 'store_03.csv (4 of 12)', phase: 'reading', percent: 25, rows: 0, bytes: 0, totalBytes: 0 }));
    expect(screen.getByRole('progressbar', { name: 'Loading stores' })).toHaveAttribute('aria-valuenow', '25');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel loading stores' }));
    expect(fake.cancelLoad).toHaveBeenCalledWith('/data/stores');

    await act(async () => {
      finish([{ file: '/data/stores', error: { code: 'canceled', message: 'Canceled: the folder was not opened.', hint: 'Nothing was changed.' } }]);
    });
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByRole('alert')).toHaveTextContent('Canceled: the folder was not opened.');
  });

  it('opens one dataset per file by default; a folder that cannot be opened says why', async () => {
    fake.foldersAmong.mockResolvedValue([stores, { path: '/data/empty', files: 0, skipped: 3, name: 'empty', error: { code: 'file', message: 'the folder holds no data file', hint: 'Give a folder of CSV files.' } }]);
    fake.openFolder.mockImplementation(async (path) => {
      fake.listDatasets.mockResolvedValue([dataset('store_00'), dataset('store_01')]);
      return [
        { file: `${path}/store_00.csv`, datasets: [dataset('store_00')] },
        { file: `${path}/store_01.csv`, datasets: [dataset('store_01')] },
      ];
    });
    render(<App />);
    await openByPath('/data/stores\n/data/empty');
    expect(fake.openFiles).not.toHaveBeenCalled();
    let dialog = within(await screen.findByTestId('folder-dialog'));
    expect(dialog.getByRole('radio', { name: /One dataset per file/ })).toBeChecked();
    expect(dialog.queryByRole('textbox', { name: 'Dataset name' })).toBeNull();
    await act(async () => {
      fireEvent.click(dialog.getByRole('button', { name: 'Open' }));
    });
    expect(fake.openFolder).toHaveBeenCalledWith('/data/stores', false, 'stores');
    expect(await screen.findByText('Loaded 2 tables')).toBeInTheDocument();

    // The next folder cannot be opened: it says why, and OK closes it.
    dialog = within(await screen.findByTestId('folder-dialog'));
    expect(dialog.getByRole('heading')).toHaveTextContent('Cannot open empty');
    expect(dialog.getByText('Give a folder of CSV files.')).toBeInTheDocument();
    fireEvent.click(dialog.getByRole('button', { name: 'OK' }));
    expect(screen.queryByTestId('folder-dialog')).toBeNull();
    expect(fake.openFolder).toHaveBeenCalledTimes(1);
  });
});
