import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, ConnectionSchema } from '../../api';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ConnectionsSection } from './ConnectionsSection';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const shop: Connection = { name: 'shop', kind: 'postgres', host: 'db', port: 5432, database: 'shop', user: 'ro', url: 'postgres://ro@db:5432/shop', hasPassword: true };

const schema: ConnectionSchema = {
  name: 'shop',
  dialect: 'PostgreSQL',
  version: '15.8',
  database: 'shop',
  tables: [
    { name: 'customers', kind: 'table', rows: 10, columns: [{ name: 'id', type: 'bigint' }] },
    {
      name: 'orders',
      kind: 'table',
      rows: 1200,
      comment: 'web orders',
      note: 'One row per web order since 2023',
      columns: [
        { name: 'id', type: 'bigint' },
        { name: 'status', type: 'integer', comment: 'state code', note: '3 means cancelled' },
        { name: 'total', type: 'numeric(10,2)', comment: 'in EUR' },
      ],
    },
  ],
};

/** Opens the shop connection (unless it is open) and the Notes… dialog of its orders table. */
async function openNotes(expand = true) {
  if (expand) fireEvent.click(await screen.findByText('shop'));
  await screen.findAllByTestId('connection-table');
  fireEvent.click(screen.getByRole('button', { name: 'Notes on orders' }));
  return screen.getByTestId('notes-dialog');
}

describe('Notes on a connection table', () => {
  it('opens the notes dialog on a table, showing its notes and the database comments, and saves the changed ones', async () => {
    fake.listConnections.mockResolvedValue([shop]);
    fake.connectionTables.mockResolvedValue(schema);
    renderWithStore(<ConnectionsSection />);
    const dialog = await openNotes();
    expect(within(dialog).getByRole('heading', { name: 'Notes on orders' })).toBeInTheDocument();
    // A table with a note says so; one without offers to write one.
    expect(screen.getByRole('button', { name: 'Notes on orders' })).toHaveAttribute('title', 'Notes… (One row per web order since 2023)');
    expect(screen.getByRole('button', { name: 'Notes on customers' })).toHaveAttribute('title', 'Notes…: say what the table holds, for the agent');
    const table = within(dialog).getByRole('textbox', { name: 'Table note' });
    expect(table).toHaveValue('One row per web order since 2023');
    expect(within(dialog).getByRole('textbox', { name: 'Note on status' })).toHaveValue('3 means cancelled');
    const total = within(dialog).getByRole('textbox', { name: 'Note on total' });
    expect(total).toHaveValue('');
    expect(total).toHaveAttribute('placeholder', 'in EUR');

    fireEvent.change(table, { target: { value: 'Web and shop orders since 2023' } });
    fireEvent.change(total, { target: { value: ' gross, with VAT ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save notes' }));
    await waitFor(() => expect(screen.queryByTestId('notes-dialog')).toBeNull());
    expect(fake.setConnectionNote).toHaveBeenCalledWith('shop', 'orders', 'Web and shop orders since 2023', { total: ' gross, with VAT ' });
    expect(fake.setDatasetNote).not.toHaveBeenCalled();
    expect(fake.connectionTables).toHaveBeenCalledTimes(1);

    // Opened again, the dialog shows the notes just saved.
    const again = await openNotes(false);
    expect(within(again).getByRole('textbox', { name: 'Table note' })).toHaveValue('Web and shop orders since 2023');
    expect(within(again).getByRole('textbox', { name: 'Note on total' })).toHaveValue('gross, with VAT');
    expect(within(again).getByRole('textbox', { name: 'Note on status' })).toHaveValue('3 means cancelled');
  });

  it('keeps the dialog open with the reason when the notes are refused', async () => {
    fake.listConnections.mockResolvedValue([shop]);
    fake.connectionTables.mockResolvedValue(schema);
    fake.setConnectionNote.mockRejectedValueOnce(
      new FakeApiError('not_found', 'The connection shop has no table "orders".', 'Refresh its tables if it was added since.'),
    );
    renderWithStore(<ConnectionsSection />);
    const dialog = await openNotes();
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Table note' }), { target: { value: 'x' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save notes' }));
    expect(await within(dialog).findByText(/has no table "orders"/)).toBeInTheDocument();
    expect(screen.getByTestId('notes-dialog')).toBeInTheDocument();
  });
});
