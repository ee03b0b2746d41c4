import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { dataset, fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore, initialState } from '../../state/store';
import { groupChats, Sidebar, SIDEBAR_DATASETS } from './Sidebar';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const now = new Date(2026, 5, 15, 12, 0);
const at = (daysAgo: number, from = now) => new Date(from.getTime() - daysAgo * 86_400_000).toISOString();
const chat = (id: string, name: string, daysAgo: number, from = now) => ({
  id,
  name,
  created: at(daysAgo, from),
  updated: at(daysAgo, from),
});

describe('groupChats', () => {
  it('groups by Today, Yesterday, Last 7 days and Older, newest first, and filters by name', () => {
    const chats = [chat('a', 'Revenue by region', 0), chat('b', 'Churn', 1), chat('c', 'Refunds', 3), chat('d', 'Old one', 30), chat('e', 'Revenue trend', 0.1)];
    const groups = groupChats(chats, '', now);
    expect(groups.map(([g, l]) => [g, l.map((c) => c.id)])).toEqual([
      ['Today', ['a', 'e']],
      ['Yesterday', ['b']],
      ['Last 7 days', ['c']],
      ['Older', ['d']],
    ]);
    expect(groupChats(chats, 'revenue', now).flatMap(([, l]) => l.map((c) => c.id))).toEqual(['a', 'e']);
  });
});

describe('Sidebar', () => {
  it('lists datasets with rows and source, and renames, previews, profiles and removes them from the menu', async () => {
    const orders = dataset('orders', { rows: 1_234_567, part: 'Sheet1' });
    fake.listDatasets.mockResolvedValue([orders]);
    const s = createStore({ ...initialState(), datasets: [orders] });
    renderWithStore(<Sidebar />, s);
    const item = screen.getByTestId('dataset');
    expect(item).toHaveTextContent('1.2M rows · orders.csv · Sheet1');

    fireEvent.click(within(item).getByRole('button', { name: 'Actions for orders' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Profile' }));
    expect(s.get().view).toEqual({ kind: 'dataset', name: 'orders', mode: 'profile' });

    fireEvent.click(within(item).getByRole('button', { name: 'Actions for orders' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Rename' }));
    const field = screen.getByRole('textbox', { name: 'Dataset name' });
    fireEvent.change(field, { target: { value: 'orders_2024' } });
    fireEvent.keyDown(field, { key: 'Enter' });
    await waitFor(() => expect(fake.renameDataset).toHaveBeenCalledWith('orders', 'orders_2024'));

    fireEvent.click(within(item).getByRole('button', { name: 'Actions for orders' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Remove' }));
    expect(fake.removeDataset).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Click to remove' }));
    await waitFor(() => expect(fake.removeDataset).toHaveBeenCalledWith('orders'));
  });

  it('lists a workspace of 10,000 datasets a hundred at a time, with a filter that finds the others', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => dataset(`store_${i}`, { source: `/data/daily/store_${i}.csv` }));
    renderWithStore(<Sidebar />, createStore({ ...initialState(), datasets: many }));
    expect(screen.getAllByTestId('dataset')).toHaveLength(SIDEBAR_DATASETS);
    expect(screen.getByText('9,900 more not listed: type in the filter to find them.')).toBeInTheDocument();
    const filter = screen.getByRole('searchbox', { name: 'Filter datasets' });
    expect(filter).toHaveAttribute('placeholder', 'Filter 10,000 datasets');

    fireEvent.change(filter, { target: { value: 'store_9999' } });
    expect(screen.getAllByTestId('dataset').map((d) => d.textContent)).toEqual([expect.stringContaining('store_9999')]);
    expect(screen.queryByText(/more not listed/)).toBeNull();

    fireEvent.change(filter, { target: { value: 'store_99' } });
    // store_99, store_990-999 and store_9900-9999 match: 111.
    expect(screen.getAllByTestId('dataset')).toHaveLength(SIDEBAR_DATASETS);
    expect(screen.getByText('11 more not listed: type in the filter to find them.')).toBeInTheDocument();

    fireEvent.change(filter, { target: { value: 'nothing like it' } });
    expect(screen.queryAllByTestId('dataset')).toHaveLength(0);
    expect(screen.getByText('No dataset matches “nothing like it”.')).toBeInTheDocument();
  });

  it('offers no filter for a few datasets', () => {
    renderWithStore(<Sidebar />, createStore({ ...initialState(), datasets: [dataset('orders'), dataset('customers')] }));
    expect(screen.getAllByTestId('dataset')).toHaveLength(2);
    expect(screen.queryByRole('searchbox', { name: 'Filter datasets' })).toBeNull();
  });

  it('opens the notes dialog from the dataset menu and saves the note', async () => {
    const orders = dataset('orders');
    const s = createStore({ ...initialState(), datasets: [orders] });
    renderWithStore(<Sidebar />, s);
    fireEvent.click(within(screen.getByTestId('dataset')).getByRole('button', { name: 'Actions for orders' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Notes…' }));
    // The list holds summaries: the dialog opens with the whole dataset, fetched.
    const dialog = await screen.findByTestId('notes-dialog');
    expect(fake.getDataset).toHaveBeenCalledWith('orders');
    expect(dialog).toHaveTextContent('Notes on orders');
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Table note' }), { target: { value: 'Web orders' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save notes' }));
    await waitFor(() => expect(screen.queryByTestId('notes-dialog')).toBeNull());
    expect(fake.setDatasetNote).toHaveBeenCalledWith('orders', 'Web orders', {});
  });

  it('searches, opens, renames and deletes conversations', async () => {
    const today = new Date();
    today.setHours(12);
    const chats = [chat('a', 'Revenue by region', 0, today), chat('b', 'Churn', 9, today)];
    fake.getChat.mockResolvedValue({ ...chats[1]!, turns: [] });
    fake.listChats.mockResolvedValue(chats.slice(0, 1));
    const s = createStore({ ...initialState(), datasets: [], chats });
    renderWithStore(<Sidebar />, s);
    expect(screen.getByText('Today')).toBeInTheDocument();
    expect(screen.getByText('Older')).toBeInTheDocument();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search conversations' }), { target: { value: 'churn' } });
    expect(screen.queryByText('Revenue by region')).toBeNull();
    fireEvent.click(screen.getByText('Churn'));
    await waitFor(() => expect(fake.getChat).toHaveBeenCalledWith('b'));
    expect(s.get().chatId).toBe('b');
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search conversations' }), { target: { value: '' } });

    fireEvent.click(screen.getByRole('button', { name: 'Actions for Churn' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Click to delete' }));
    await waitFor(() => expect(fake.deleteChat).toHaveBeenCalledWith('b'));
    expect(s.get().chatId).toBeNull();
  });

  it('searches the answers too, showing where the text is with the match marked', async () => {
    const today = new Date();
    const chats = [chat('a', 'Revenue by region', 0, today), chat('b', 'Churn', 1, today)];
    fake.getChat.mockResolvedValue({ ...chats[0]!, turns: [] });
    fake.searchChats.mockResolvedValue([
      { ...chats[0]!, in: 'answer', matches: 2, snippet: { before: 'Sales are highest in the ', match: 'West', after: ', then the East.' } },
    ]);
    const s = createStore({ ...initialState(), datasets: [], chats });
    renderWithStore(<Sidebar />, s);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search conversations' }), { target: { value: ' West ' } });
    // No name holds it: until the search answers, the names filter alone.
    expect(screen.getByText('No conversation matches “ West ”.')).toBeInTheDocument();
    const hit = await screen.findByTestId('chat-hit');
    expect(fake.searchChats).toHaveBeenCalledWith('West');
    expect(hit).toHaveTextContent('Revenue by region');
    expect(within(hit).getByTestId('chat-hit-snippet')).toHaveTextContent('Sales are highest in the West, then the East.');
    expect(hit.querySelector('mark')).toHaveTextContent(/^West$/);
    expect(hit).toHaveTextContent('in an answer · 2 messages');
    fireEvent.click(hit);
    await waitFor(() => expect(s.get().chatId).toBe('a'));

    fake.searchChats.mockResolvedValue([]);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search conversations' }), { target: { value: 'nowhere' } });
    expect(await screen.findByText('No conversation holds “nowhere”.')).toBeInTheDocument();
  });
});
