import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore, initialState } from '../../state/store';
import { dataset, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ChatView } from './ChatView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

describe('the empty conversation', () => {
  it('says "your tables" while the workspace is still opening, not "your 0 tables"', () => {
    renderWithStore(<ChatView />, createStore({ ...initialState(), datasets: null }));
    const text = screen.getByText(/Ask in plain words/);
    expect(text).toHaveTextContent('Loupe looks at your tables,');
    expect(text).not.toHaveTextContent('0 tables');
  });

  it('counts the tables once they are listed', () => {
    const many = Array.from({ length: 1_200 }, (_, i) => dataset(`store_${i}`));
    renderWithStore(<ChatView />, createStore({ ...initialState(), datasets: many }));
    expect(screen.getByText(/Ask in plain words/)).toHaveTextContent('Loupe looks at your 1,200 tables,');
  });
});
