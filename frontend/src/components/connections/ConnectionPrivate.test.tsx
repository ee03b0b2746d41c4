import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, ConnectionSchema } from '../../api';
import { fake, resetFake } from '../../test/fakeApi';
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
  tables: [{ name: 'public.customers', kind: 'table', rows: 10, columns: [{ name: 'id', type: 'bigint' }, { name: 'email', type: 'text' }] }],
};

describe('Private columns of a connection table', () => {
  it('lists the proposed ones from the lock beside the table and saves a toggle for that connection and table', async () => {
    fake.listConnections.mockResolvedValue([shop]);
    fake.connectionTables.mockResolvedValue(schema);
    fake.connectionPrivateColumns.mockResolvedValue([
      { table: 'public.customers', column: 'id', private: false, proposed: false, decided: false },
      { table: 'public.customers', column: 'email', private: true, kind: 'email', proposed: true, decided: false },
    ]);
    fake.setConnectionPrivateColumn.mockResolvedValue({ table: 'public.customers', column: 'email', private: false, proposed: true, decided: true });
    renderWithStore(<ConnectionsSection />);
    fireEvent.click(await screen.findByText('shop'));
    await screen.findAllByTestId('connection-table');
    fireEvent.click(screen.getByRole('button', { name: 'Private columns of public.customers' }));
    const dialog = screen.getByTestId('private-dialog');
    const email = await within(dialog).findByRole('checkbox', { name: 'Private: email' });
    expect(email).toBeChecked();
    expect(fake.connectionPrivateColumns).toHaveBeenCalledWith('shop', 'public.customers');
    fireEvent.click(email);
    await waitFor(() => expect(within(dialog).getByRole('checkbox', { name: 'Private: email' })).not.toBeChecked());
    expect(fake.setConnectionPrivateColumn).toHaveBeenCalledWith('shop', 'public.customers', 'email', false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('private-dialog')).toBeNull();
  });
});
