import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PrivateColumn } from '../../api';
import { FakeApiError } from '../../test/fakeApi';
import { PrivateColumnsDialog } from './PrivateColumnsDialog';

const col = (column: string, over: Partial<PrivateColumn> = {}): PrivateColumn => ({
  table: 'people',
  column,
  private: false,
  proposed: false,
  decided: false,
  ...over,
});

let cols: PrivateColumn[];
beforeEach(() => {
  cols = [col('email', { private: true, kind: 'email', proposed: true }), col('city'), col('score')];
});

describe('PrivateColumnsDialog', () => {
  it('shows the proposed columns and saves each toggle as the user decision', async () => {
    const onSet = vi.fn(async (column: string, isPrivate: boolean) =>
      col(column, isPrivate ? { private: true, decided: true, kind: 'private' } : { decided: true }),
    );
    render(<PrivateColumnsDialog table="people" load={async () => cols} onSet={onSet} onClose={() => {}} />);
    const email = await screen.findByRole('checkbox', { name: 'Private: email' });
    expect(email).toBeChecked();
    expect(screen.getByText(/Loupe proposes one column/)).toBeInTheDocument();
    expect(screen.getAllByTestId('private-column')[0]).toHaveTextContent('emailemailproposed');
    const city = screen.getByRole('checkbox', { name: 'Private: city' });
    expect(city).not.toBeChecked();

    fireEvent.click(city);
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Private: city' })).toBeChecked());
    expect(onSet).toHaveBeenCalledWith('city', true);
    fireEvent.click(email);
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Private: email' })).not.toBeChecked());
    expect(onSet).toHaveBeenLastCalledWith('email', false);
    expect(screen.getAllByTestId('private-column')[0]).not.toHaveTextContent('proposed');
  });

  it('shows a refusal and keeps the column as it was', async () => {
    const onSet = vi.fn(async () => {
      throw new FakeApiError('not_found', 'people has no column "city".', 'Private columns can be marked only on a table\u2019s own columns.');
    });
    render(<PrivateColumnsDialog table="people" load={async () => cols} onSet={onSet} onClose={() => {}} />);
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Private: city' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The private columns were not changed');
    expect(alert).toHaveTextContent('people has no column "city".');
    expect(screen.getByRole('checkbox', { name: 'Private: city' })).not.toBeChecked();
  });
});
