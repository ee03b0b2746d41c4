import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { dataset, fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { MAX_NOTE, NotesDialog } from './NotesDialog';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

function orders() {
  const d = dataset('orders', { note: 'Web orders.', comment: 'orders table' });
  d.columns[0] = { ...d.columns[0]!, note: 'sales region' };
  d.columns[1] = { ...d.columns[1]!, comment: 'net, in euros' };
  return d;
}

describe('NotesDialog', () => {
  it('lists every column with its type, and saves the table note with only the column notes that changed', async () => {
    const onClose = vi.fn();
    render(<NotesDialog dataset={orders()} onClose={onClose} />);
    const table = screen.getByRole('textbox', { name: 'Table note' });
    expect(table).toHaveValue('Web orders.');
    expect(table).toHaveFocus();
    const cols = screen.getByRole('group', { name: 'Column notes' });
    expect(cols).toHaveTextContent('regionVARCHAR');
    expect(cols).toHaveTextContent('dayDATE');
    expect(screen.getByRole('textbox', { name: 'Note on region' })).toHaveValue('sales region');
    // A source comment is the placeholder, not the value.
    const amount = screen.getByRole('textbox', { name: 'Note on amount' });
    expect(amount).toHaveValue('');
    expect(amount).toHaveAttribute('placeholder', 'net, in euros');

    fireEvent.change(table, { target: { value: 'One row per web order since 2023.' } });
    fireEvent.change(amount, { target: { value: 'euros without VAT' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Note on region' }), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save notes' }));
    expect(fake.setDatasetNote).toHaveBeenCalledWith('orders', 'One row per web order since 2023.', { amount: 'euros without VAT', region: '' });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('refuses a note over the limit before sending it, and shows a backend refusal', async () => {
    fake.setDatasetNote.mockRejectedValueOnce(new FakeApiError('not_found', 'No dataset is called "orders".', 'It may have been removed.'));
    const onClose = vi.fn();
    render(<NotesDialog dataset={orders()} onClose={onClose} />);
    const table = screen.getByRole('textbox', { name: 'Table note' });
    fireEvent.change(table, { target: { value: 'x'.repeat(MAX_NOTE + 1) } });
    expect(screen.getByRole('button', { name: 'Save notes' })).toBeDisabled();
    expect(screen.getByText(/at most 2,000 characters/)).toBeInTheDocument();
    fireEvent.change(table, { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save notes' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The notes were not saved');
    expect(alert).toHaveTextContent('No dataset is called "orders".');
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalled();
  });
});
