import { fireEvent, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, ConnectionTable } from '../../api';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore, initialState } from '../../state/store';
import { ChatView } from '../chat/ChatView';
import { connectionQuestions } from './ConnectionChat';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const music: Connection = { name: 'music', kind: 'sqlite', path: '/data/Chinook_Sqlite.sqlite', url: 'sqlite:///data/Chinook_Sqlite.sqlite', hasPassword: false };

const table = (name: string, rows: number, columns: [string, string][]): ConnectionTable => ({
  name,
  kind: 'table',
  rows,
  columns: columns.map(([n, type]) => ({ name: n, type })),
});

// The Chinook tables as ConnectionTables reports them (a few columns each).
const chinook: ConnectionTable[] = [
  table('Album', 347, [['AlbumId', 'INTEGER'], ['Title', 'NVARCHAR(160)'], ['ArtistId', 'INTEGER']]),
  table('Artist', 275, [['ArtistId', 'INTEGER'], ['Name', 'NVARCHAR(120)']]),
  table('Customer', 59, [['CustomerId', 'INTEGER'], ['Country', 'NVARCHAR(40)']]),
  table('Employee', 8, [['EmployeeId', 'INTEGER'], ['HireDate', 'DATETIME']]),
  table('Genre', 25, [['GenreId', 'INTEGER'], ['Name', 'NVARCHAR(120)']]),
  table('Invoice', 412, [['InvoiceId', 'INTEGER'], ['CustomerId', 'INTEGER'], ['InvoiceDate', 'DATETIME'], ['BillingCountry', 'NVARCHAR(40)'], ['Total', 'NUMERIC(10,2)']]),
  table('InvoiceLine', 2240, [['InvoiceLineId', 'INTEGER'], ['InvoiceId', 'INTEGER'], ['TrackId', 'INTEGER'], ['Quantity', 'INTEGER']]),
  table('MediaType', 5, [['MediaTypeId', 'INTEGER'], ['Name', 'NVARCHAR(120)']]),
  table('Playlist', 18, [['PlaylistId', 'INTEGER'], ['Name', 'NVARCHAR(120)']]),
  table('PlaylistTrack', 8715, [['PlaylistId', 'INTEGER'], ['TrackId', 'INTEGER']]),
  table('Track', 3503, [['TrackId', 'INTEGER'], ['Name', 'NVARCHAR(200)'], ['AlbumId', 'INTEGER'], ['MediaTypeId', 'INTEGER'], ['GenreId', 'INTEGER']]),
];

function chatAbout(connection: string, connections: Connection[]) {
  const at = new Date().toISOString();
  return createStore({
    ...initialState(),
    datasets: [],
    connections,
    chats: [{ id: 'c1', name: 'New chat', created: at, updated: at, connection }],
    chatId: 'c1',
    turns: { c1: [] },
  });
}

describe('a conversation about a connection', () => {
  it('names the database in its header and speaks of its tables when empty', async () => {
    fake.connectionTables.mockResolvedValue({ name: 'music', dialect: 'SQLite', version: '3.46.0', database: 'Chinook_Sqlite', tables: chinook });
    const s = chatAbout('music', [music]);
    renderWithStore(<ChatView />, s);

    const tag = screen.getByTestId('connection-chat-tag');
    expect(tag).toHaveTextContent(/^musicSQLite · Chinook_Sqlite\.sqliteread-only$/);
    expect(tag.closest('header')).toContainElement(screen.getByRole('heading', { name: 'New chat' }));
    expect(screen.getByRole('heading', { name: 'What would you like to know about music?' })).toBeVisible();
    const empty = screen.getByTestId('connection-ask-empty');
    expect(await screen.findByText(/with 11 tables/)).toBeVisible();
    expect(empty).toHaveTextContent('Loupe asks music, a SQLite database with 11 tables (PlaylistTrack, Track, InvoiceLine and 8 more): its queries run there');
    expect(empty).not.toHaveTextContent('your 0 tables');
    expect(fake.connectionTables).toHaveBeenCalledWith('music');

    fireEvent.click(screen.getByRole('button', { name: 'Which album has the most tracks?' }));
    expect(screen.getByRole('textbox', { name: 'Question' })).toHaveValue('Which album has the most tracks?');
  });

  it('says when the connection was removed, and why its tables cannot be listed', async () => {
    fake.connectionTables.mockRejectedValue(
      new FakeApiError('not_found', 'No connection is called "music".', 'It may have been removed or renamed; the sidebar lists the connections.'),
    );
    renderWithStore(<ChatView />, chatAbout('music', []));
    expect(screen.getByTestId('connection-chat-tag')).toHaveTextContent('removed: add it again to ask here');
    expect(await screen.findByRole('alert')).toHaveTextContent('No connection is called "music". It may have been removed or renamed');
    expect(screen.getByTestId('connection-ask-empty')).toHaveTextContent('Loupe asks music, a database: its queries run there');
    expect(screen.queryAllByRole('button', { name: /\?$/ })).toHaveLength(0);
  });

  it('shows no connection tag in a conversation about the workspace', () => {
    const at = new Date().toISOString();
    const s = createStore({
      ...initialState(),
      datasets: [],
      connections: [music],
      chats: [{ id: 'w', name: 'Files', created: at, updated: at }],
      chatId: 'w',
      turns: { w: [] },
    });
    renderWithStore(<ChatView />, s);
    expect(screen.queryByTestId('connection-chat-tag')).toBeNull();
    expect(screen.queryByTestId('connection-ask-empty')).toBeNull();
    expect(fake.connectionTables).not.toHaveBeenCalled();
  });
});

describe('connectionQuestions', () => {
  it('asks across the links column names make (not from link tables), over time, and about the biggest table', () => {
    expect(connectionQuestions(chinook)).toEqual([
      'Which album has the most tracks?',
      'Which invoice has the most invoice lines?',
      'How do invoices change over time?',
      'What is in the Track table?',
    ]);
  });

  it('works with schema-qualified snake_case names and unknown row counts', () => {
    const tables = [
      table('sales.order_items', -1, [['order_id', 'integer'], ['qty', 'integer']]),
      table('sales.orders', -1, [['order_id', 'integer'], ['category_id', 'integer'], ['status', 'text'], ['ordered_at', 'timestamp with time zone']]),
      table('sales.categories', -1, [['category_id', 'integer'], ['name', 'text']]),
    ];
    expect(connectionQuestions(tables)).toEqual([
      'Which category has the most orders?',
      'Which order has the most order items?',
      'How do orders change over time?',
      'What is in the sales.orders table?',
    ]);
    expect(connectionQuestions([])).toEqual([]);
  });
});
