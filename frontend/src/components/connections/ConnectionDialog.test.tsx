import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import type { Connection } from '../../api';
import { ConnectionDialog, inputOf, readOnlySQL, suggestName, type Form } from './ConnectionDialog';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const field = (name: string) => screen.getByLabelText(name, { exact: true }) as HTMLInputElement;
const type = (name: string, value: string) => fireEvent.change(field(name), { target: { value } });

describe('ConnectionDialog', () => {
  it('adds a PostgreSQL connection: the name follows the database, Test says what failed and then what it found, Save sends the fields', async () => {
    const onSaved = vi.fn();
    render(<ConnectionDialog editing={null} onClose={() => undefined} onSaved={onSaved} />);
    expect(screen.getByRole('heading', { name: 'Connect a database' })).toBeInTheDocument();
    type('Host', 'db.example.com');
    type('Database', 'shop');
    type('User', 'loupe_ro');
    type('Password', 'pw');
    expect(field('Name').value).toBe('shop');

    // The read-only role's SQL names this database.
    const advice = screen.getByTestId('read-only-advice');
    expect(advice).toHaveTextContent('GRANT CONNECT ON DATABASE shop TO loupe_ro;');
    expect(advice).toHaveTextContent('ALTER ROLE loupe_ro SET default_transaction_read_only = on;');

    fake.testConnectionInput.mockRejectedValueOnce(
      new FakeApiError('db_auth', 'The server refused the password for user loupe_ro (db.example.com:5432).', 'Check the user name and password.'),
    );
    fireEvent.click(screen.getByRole('button', { name: /Test connection/ }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The connection failed');
    expect(alert).toHaveTextContent('The server refused the password for user loupe_ro');
    expect(alert).toHaveTextContent('Check the user name and password.');
    const sent = { name: 'shop', kind: 'postgres', host: 'db.example.com', database: 'shop', user: 'loupe_ro', tls: 'prefer', password: 'pw' };
    expect(fake.testConnectionInput).toHaveBeenLastCalledWith(sent);

    // Changing a field forgets the last result; a good test says what it found.
    type('Password', 'right');
    expect(screen.queryByRole('alert')).toBeNull();
    fake.testConnectionInput.mockResolvedValueOnce({ name: 'shop', dialect: 'PostgreSQL', version: '15.8 (Debian)', database: 'shop', tables: 11, elapsedMs: 12.4 });
    fireEvent.click(screen.getByRole('button', { name: /Test connection/ }));
    expect(await screen.findByTestId('connection-test-ok')).toHaveTextContent('Connected to PostgreSQL 15.8: 11 tables and views, 12 ms');

    fireEvent.change(screen.getByRole('combobox', { name: 'Encryption (TLS)' }), { target: { value: 'verify-full' } });
    type('Port', '6543');
    fireEvent.click(screen.getByRole('button', { name: 'Add connection' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(fake.saveConnection).toHaveBeenCalledWith({ ...sent, password: 'right', tls: 'verify-full', port: 6543 });
  });

  it('adds a SQLite file, which needs no password and no role', async () => {
    const onSaved = vi.fn();
    render(<ConnectionDialog editing={null} onClose={() => undefined} onSaved={onSaved} />);
    fireEvent.click(screen.getByRole('radio', { name: 'SQLite file' }));
    expect(screen.queryByLabelText('Password')).toBeNull();
    type('Database file', '/data/Chinook_Sqlite.sqlite');
    expect(field('Name').value).toBe('Chinook_Sqlite');
    expect(screen.getByText(/opens SQLite files read-only/)).toBeInTheDocument();
    expect(screen.queryByTestId('read-only-advice')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add connection' }));
    await waitFor(() => expect(fake.saveConnection).toHaveBeenCalledWith({ name: 'Chinook_Sqlite', kind: 'sqlite', path: '/data/Chinook_Sqlite.sqlite' }));
  });

  it('edits a connection keeping its stored password, and shows why a save was refused', async () => {
    const conn: Connection = {
      name: 'shop',
      kind: 'mysql',
      host: 'db',
      port: 3306,
      database: 'shop',
      user: 'ro',
      tls: 'require',
      url: 'mysql://ro@db:3306/shop?tls=require',
      hasPassword: true,
    };
    const onSaved = vi.fn();
    render(<ConnectionDialog editing={conn} onClose={() => undefined} onSaved={onSaved} />);
    expect(screen.getByRole('heading', { name: 'Edit shop' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'MySQL / MariaDB' })).toBeChecked();
    expect(field('Password')).toHaveAttribute('placeholder', '•••••••• (stored)');
    expect(screen.getByTestId('read-only-advice')).toHaveTextContent("GRANT SELECT, SHOW VIEW ON shop.* TO 'loupe_ro'@'%';");

    // Renaming keeps the typed name instead of following the database.
    type('Name', 'shop-eu');
    type('Database', 'shop_eu');
    expect(field('Name').value).toBe('shop-eu');

    fake.saveConnection.mockRejectedValueOnce(new FakeApiError('invalid', 'A connection called "shop-eu" already exists.', 'Choose another name, or edit that connection.'));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Not saved')).toBeInTheDocument();
    expect(alert).toHaveTextContent('already exists');
    expect(onSaved).not.toHaveBeenCalled();
    expect(fake.saveConnection).toHaveBeenCalledWith({
      name: 'shop-eu',
      previous: 'shop',
      kind: 'mysql',
      host: 'db',
      port: 3306,
      database: 'shop_eu',
      user: 'ro',
      tls: 'require',
    });
  });

  it('takes a URL, password included, and tests it before saving', async () => {
    render(<ConnectionDialog editing={null} onClose={() => undefined} onSaved={() => undefined} />);
    fireEvent.click(screen.getByRole('radio', { name: 'URL' }));
    type('Connection URL', 'postgres://ro:pw@127.0.0.1:5433/chinook?sslmode=disable');
    expect(field('Name').value).toBe('chinook');
    expect(screen.getByTestId('read-only-advice')).toHaveTextContent('GRANT CONNECT ON DATABASE chinook TO loupe_ro;');
    fake.testConnectionInput.mockRejectedValueOnce(new FakeApiError('db_unreachable', 'Cannot reach the database server (127.0.0.1:5433).', 'Check the host name and port.'));
    fireEvent.click(screen.getByRole('button', { name: /Test connection/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Cannot reach the database server (127.0.0.1:5433).');
    expect(fake.testConnectionInput).toHaveBeenCalledWith({ name: 'chinook', url: 'postgres://ro:pw@127.0.0.1:5433/chinook?sslmode=disable' });
  });
});

describe('form helpers', () => {
  const form = (over: Partial<Form>): Form => ({
    mode: 'postgres',
    name: '',
    host: '',
    port: '',
    database: '',
    user: '',
    password: '',
    tls: 'prefer',
    path: '',
    url: '',
    ...over,
  });

  it('suggests names that the backend accepts', () => {
    expect(suggestName(form({ mode: 'sqlite', path: '/x/My Music.db' }))).toBe('My-Music');
    expect(suggestName(form({ mode: 'url', url: 'mysql://u@h/sales_2024' }))).toBe('sales_2024');
    expect(suggestName(form({ mode: 'url', url: 'sqlite:///home/me/shop.sqlite3' }))).toBe('shop');
  });

  it('leaves out a password nobody typed, so the stored one is kept', () => {
    expect(inputOf(form({ name: 'a', host: 'h', database: 'd', user: 'u' }), 'a')).not.toHaveProperty('password');
    expect(inputOf(form({ mode: 'sqlite', name: 'a', path: '/f.db', password: 'x' }))).not.toHaveProperty('password');
  });

  it('quotes nothing odd into the role SQL', () => {
    expect(readOnlySQL('postgres', 'my db; DROP')).toContain('GRANT CONNECT ON DATABASE mydb TO loupe_ro;');
  });
});
