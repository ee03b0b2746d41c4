import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, RoleWarning } from '../../api';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore } from '../../state/store';
import { ConnectionDialog } from './ConnectionDialog';
import { ConnectionsSection } from './ConnectionsSection';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

// What remote.AuditRole returns for the superuser postgres.
const superuser: RoleWarning = {
  role: 'postgres',
  message: 'The role postgres can do more than read.',
  advice: 'Loupe refuses statements that write or reach outside the database. Connect with a read-only role instead.',
  risks: ['is a superuser: reads and writes any file the server can and runs programs on it (COPY … PROGRAM)', 'may write (INSERT, UPDATE, DELETE or TRUNCATE) 11 tables'],
  sql: "CREATE ROLE loupe_ro LOGIN PASSWORD '…';\nGRANT CONNECT ON DATABASE chinook TO loupe_ro;",
};

const admin: Connection = {
  name: 'admin',
  kind: 'postgres',
  host: '127.0.0.1',
  port: 5433,
  database: 'chinook',
  user: 'postgres',
  url: 'postgres://postgres@127.0.0.1:5433/chinook',
  hasPassword: true,
  role: superuser,
};

describe('the role warning', () => {
  it('follows a test that found a role able to do more than read, with the SQL of a read-only role', async () => {
    render(<ConnectionDialog editing={null} onClose={() => undefined} onSaved={() => undefined} />);
    fake.testConnectionInput.mockResolvedValueOnce({ name: 'chinook', dialect: 'PostgreSQL', version: '16.4', database: 'chinook', tables: 11, elapsedMs: 9, role: superuser });
    fireEvent.click(screen.getByRole('button', { name: /Test connection/ }));
    expect(await screen.findByTestId('connection-test-ok')).toHaveTextContent('Connected to PostgreSQL 16.4');
    const w = screen.getByTestId('role-warning');
    expect(w).toHaveTextContent('The role postgres can do more than read.');
    expect(w).toHaveTextContent('Connect with a read-only role instead.');
    expect(w).toHaveTextContent('postgres is a superuser: reads and writes any file the server can');
    expect(w).toHaveTextContent('may write (INSERT, UPDATE, DELETE or TRUNCATE) 11 tables');
    expect(within(w).getByTestId('role-warning-sql').textContent).toBe(superuser.sql);
    expect(within(w).getByRole('button', { name: /Copy SQL/ })).toBeInTheDocument();
  });

  it('is absent after a test of a read-only role', async () => {
    render(<ConnectionDialog editing={null} onClose={() => undefined} onSaved={() => undefined} />);
    fake.testConnectionInput.mockResolvedValueOnce({ name: 'chinook', dialect: 'PostgreSQL', version: '16.4', database: 'chinook', tables: 11, elapsedMs: 9 });
    fireEvent.click(screen.getByRole('button', { name: /Test connection/ }));
    await screen.findByTestId('connection-test-ok');
    expect(screen.queryByTestId('role-warning')).toBeNull();
  });

  it("marks the connection's entry and shows the warning when it is opened", async () => {
    const { role: _none, ...readOnly } = admin;
    fake.listConnections.mockResolvedValue([admin, { ...readOnly, name: 'ro', user: 'loupe_ro' }]);
    fake.connectionTables.mockResolvedValue({ name: 'admin', dialect: 'PostgreSQL', version: '16.4', database: 'chinook', tables: [] });
    renderWithStore(<ConnectionsSection />, createStore());
    const items = await screen.findAllByTestId('connection');
    expect(within(items[0]!).getByTestId('role-badge')).toHaveAttribute('title', expect.stringContaining('postgres can do more than read'));
    expect(within(items[1]!).queryByTestId('role-badge')).toBeNull();
    expect(screen.queryByTestId('role-warning')).toBeNull();
    fireEvent.click(within(items[0]!).getByText('admin'));
    const w = await within(items[0]!).findByTestId('role-warning');
    expect(w).toHaveTextContent('postgres is a superuser');
    expect(within(w).getByTestId('role-warning-sql')).toHaveTextContent('CREATE ROLE loupe_ro');
  });
});

function render(ui: React.ReactElement) {
  return renderWithStore(ui, createStore());
}
