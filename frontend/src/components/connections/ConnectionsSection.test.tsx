import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection } from '../../api';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore, initialState } from '../../state/store';
import { ConnectionsSection } from './ConnectionsSection';
import { sqlName } from './names';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const music: Connection = { name: 'music', kind: 'sqlite', path: '/data/Chinook_Sqlite.sqlite', url: 'sqlite:///data/Chinook_Sqlite.sqlite', hasPassword: false };
const shop: Connection = {
  name: 'shop',
  kind: 'postgres',
  host: 'db.example.com',
  port: 5432,
  database: 'shop',
  user: 'ro',
  tls: 'prefer',
  url: 'postgres://ro@db.example.com:5432/shop?tls=prefer',
  hasPassword: true,
};

const menu = (name: string, item: string) => {
  fireEvent.click(screen.getByRole('button', { name: `Actions for ${name}` }));
  fireEvent.click(screen.getByRole('menuitem', { name: item }));
};

describe('ConnectionsSection', () => {
  it('lists the saved connections, and opens one to show its tables with their row estimates', async () => {
    fake.listConnections.mockResolvedValue([music, shop]);
    fake.connectionTables.mockResolvedValue({
      name: 'music',
      dialect: 'SQLite',
      version: '3.46.0',
      database: 'Chinook_Sqlite',
      tables: [
        { name: 'Album', kind: 'table', rows: 347, columns: [{ name: 'AlbumId', type: 'INTEGER' }] },
        { name: 'Track', kind: 'table', rows: 3503, columns: [{ name: 'TrackId', type: 'INTEGER' }] },
        { name: 'TopTracks', kind: 'view', rows: -1, columns: [] },
      ],
    });
    const s = createStore();
    renderWithStore(<ConnectionsSection />, s);
    const items = await screen.findAllByTestId('connection');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('SQLite · Chinook_Sqlite.sqlite'),
      expect.stringContaining('PostgreSQL · db.example.com:5432/shop'),
    ]);
    expect(s.get().connections).toEqual([music, shop]);

    fireEvent.click(within(items[0]!).getByText('music'));
    const tables = await screen.findAllByTestId('connection-table');
    expect(fake.connectionTables).toHaveBeenCalledWith('music', false);
    expect(tables.map((t) => t.textContent)).toEqual(['Album~347', 'Track~3,503', 'TopTracksview']);
    expect(screen.getByTestId('connection-tables')).toHaveTextContent('SQLite 3.46.0 · 3 tables');

    // A table opens the import dialog with its query.
    fireEvent.click(tables[1]!);
    const dialog = screen.getByTestId('import-dialog');
    expect(within(dialog).getByRole('textbox', { name: 'Query' })).toHaveValue('SELECT *\nFROM Track');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('import-dialog')).toBeNull();

    // Refresh reads the schema again.
    menu('music', 'Refresh tables');
    await waitFor(() => expect(fake.connectionTables).toHaveBeenLastCalledWith('music', true));
  });

  it('filters a long list of tables by table and column names', async () => {
    fake.listConnections.mockResolvedValue([shop]);
    const tables = Array.from({ length: 40 }, (_, i) => ({
      name: `t${String(i).padStart(2, '0')}`,
      kind: 'table',
      rows: i,
      columns: [{ name: i === 7 ? 'customer_email' : 'id', type: 'integer' }],
    }));
    fake.connectionTables.mockResolvedValue({ name: 'shop', dialect: 'PostgreSQL', version: '15.8', database: 'shop', tables });
    renderWithStore(<ConnectionsSection />);
    fireEvent.click(await screen.findByText('shop'));
    expect(await screen.findAllByTestId('connection-table')).toHaveLength(40);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter the tables of shop' }), { target: { value: 'EMAIL' } });
    expect(screen.getAllByTestId('connection-table').map((t) => t.textContent)).toEqual(['t07~7']);
  });

  it('says what to do when a connection cannot be opened', async () => {
    fake.listConnections.mockResolvedValue([shop]);
    fake.connectionTables.mockRejectedValueOnce(new FakeApiError('db_unreachable', 'Cannot reach the database server (db.example.com:5432).', 'Check the host name and port.'));
    renderWithStore(<ConnectionsSection />);
    fireEvent.click(await screen.findByText('shop'));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Cannot reach the database server (db.example.com:5432).');
    expect(alert).toHaveTextContent('Check the host name and port.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('connection-tables')).toHaveTextContent('SQLite 3.46 · 0 tables');
  });

  it('starts a conversation about a connection, tests, edits and removes it from its menu', async () => {
    fake.listConnections.mockResolvedValue([music]);
    fake.testConnection.mockResolvedValueOnce({ name: 'music', dialect: 'SQLite', version: '3.46.0', database: 'x', tables: 11, elapsedMs: 3 });
    const s = createStore({ ...initialState(), datasets: [] });
    renderWithStore(<ConnectionsSection />, s);
    await screen.findByTestId('connection');

    menu('music', 'Ask about this database');
    await waitFor(() => expect(s.get().chatId).toBe('chat-conn'));
    expect(fake.newConnectionChat).toHaveBeenCalledWith('music');
    expect(s.get().chats[0]).toMatchObject({ id: 'chat-conn', connection: 'music' });
    expect(s.get().view).toEqual({ kind: 'chat' });
    expect(s.get().turns['chat-conn']).toEqual([]);

    menu('music', 'Test connection');
    await waitFor(() => expect(s.get().notices.map((n) => n.message)).toContain('music: Connected to SQLite 3.46.0: 11 tables and views, 3 ms'));

    menu('music', 'Edit…');
    expect(screen.getByRole('heading', { name: 'Edit music' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'SQLite file' })).toBeChecked();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.saveConnection).toHaveBeenCalledWith({ name: 'music', previous: 'music', kind: 'sqlite', path: music.path }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    fake.listConnections.mockResolvedValue([]);
    menu('music', 'Remove');
    expect(fake.removeConnection).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Click to remove' }));
    await waitFor(() => expect(fake.removeConnection).toHaveBeenCalledWith('music'));
    expect(await screen.findByText(/Ask about a PostgreSQL, MySQL or SQLite database/)).toBeInTheDocument();
  });

  it('adds a connection from the section head', async () => {
    fake.listConnections.mockResolvedValueOnce([]).mockResolvedValue([{ ...music, name: 'Chinook_Sqlite' }]);
    renderWithStore(<ConnectionsSection />);
    fireEvent.click(await screen.findByRole('button', { name: 'Connect one' }));
    expect(screen.getByRole('heading', { name: 'Connect a database' })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('radio', { name: 'SQLite file' }));
    fireEvent.change(screen.getByLabelText('Database file'), { target: { value: music.path } });
    fireEvent.click(screen.getByRole('button', { name: 'Add connection' }));
    await screen.findByTestId('connection');
    // A new connection opens on its tables.
    await waitFor(() => expect(fake.connectionTables).toHaveBeenCalledWith('Chinook_Sqlite', true));
  });
});

describe('sqlName', () => {
  it('quotes only what the dialect needs quoted', () => {
    expect(sqlName('Track', 'SQLite')).toBe('Track');
    expect(sqlName('Track', 'PostgreSQL')).toBe('"Track"');
    expect(sqlName('public.track', 'PostgreSQL')).toBe('public.track');
    expect(sqlName('Invoice Line', 'MariaDB')).toBe('`Invoice Line`');
  });
});
