import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Dataset } from '../../api';
import { dataset, emit, fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { ImportDialog, tableNameFor } from './ImportDialog';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

describe('ImportDialog', () => {
  it('names the table from the query, shows the progress bar while rows arrive, and hands over the dataset', async () => {
    let finish: (d: Dataset) => void = () => undefined;
    fake.importQuery.mockImplementation(() => new Promise<Dataset>((resolve) => (finish = resolve)));
    const onImported = vi.fn();
    render(<ImportDialog connection="music" onClose={() => undefined} onImported={onImported} />);
    fireEvent.change(screen.getByRole('textbox', { name: 'Query' }), { target: { value: 'SELECT * FROM "Invoice" WHERE Total > 10' } });
    const table = screen.getByRole('textbox', { name: 'Table name' });
    expect(table).toHaveValue('invoice_import');
    fireEvent.change(screen.getByRole('textbox', { name: 'Row limit' }), { target: { value: '5000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    expect(fake.importQuery).toHaveBeenCalledWith('music', 'SELECT * FROM "Invoice" WHERE Total > 10', 'invoice_import', 5000, false);

    const bar = screen.getByRole('progressbar', { name: 'Importing invoice_import' });
    expect(bar).toHaveClass('progress--indeterminate');
    act(() => emit('import:progress', { connection: 'music', table: 'invoice_import', phase: 'reading', rows: 2500, maxRows: 5000 }));
    expect(bar).toHaveAttribute('aria-valuenow', '50');
    expect(screen.getByTestId('import-progress')).toHaveTextContent('Reading rows2,500 rows of at most 5,000');
    // Another import's events are not this one's.
    act(() => emit('import:progress', { connection: 'music', table: 'other', phase: 'reading', rows: 4900, maxRows: 5000 }));
    expect(bar).toHaveAttribute('aria-valuenow', '50');
    expect(screen.getByRole('button', { name: 'Importing…' })).toBeDisabled();

    // Stop cancels the import on the backend, and keeps the dialog.
    fireEvent.click(screen.getByRole('button', { name: 'Stop import' }));
    expect(fake.cancelImport).toHaveBeenCalledWith('invoice_import');

    const d = dataset('invoice_import', { rows: 5000, kind: 'sqlite', source: 'connection music' });
    await act(async () => finish(d));
    expect(onImported).toHaveBeenCalledWith(d);
  });

  it('says why an import failed and lets the user fix it', async () => {
    fake.importQuery.mockRejectedValueOnce(new FakeApiError('sql', 'The query failed on music: no such column: nope', 'Fix the SQL and try again.'));
    render(<ImportDialog connection="music" initialSQL={'SELECT nope\nFROM Track'} onClose={() => undefined} onImported={() => undefined} />);
    expect(screen.getByRole('textbox', { name: 'Table name' })).toHaveValue('track_import');
    fireEvent.click(screen.getByRole('checkbox', { name: /Replace a dataset/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The import failed');
    expect(alert).toHaveTextContent('no such column: nope');
    expect(fake.importQuery).toHaveBeenCalledWith('music', 'SELECT nope\nFROM Track', 'track_import', 100000, true);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Import' })).toBeEnabled());
    expect(screen.queryByTestId('import-progress')).toBeNull();
  });
});

describe('tableNameFor', () => {
  it('makes a plain identifier from the first table the query reads', () => {
    expect(tableNameFor('select * from public.Orders o', 'shop')).toBe('orders_import');
    expect(tableNameFor('SELECT 1', 'my-db')).toBe('my_db_import');
    expect(tableNameFor('SELECT * FROM `2024 sales`', 'x')).toBe('x_import');
  });
});
