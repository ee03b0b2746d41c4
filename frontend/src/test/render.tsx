import { render } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { createStore, StoreContext, type Store } from '../state/store';

/** render ui inside a fresh app store (or the one given); rerender keeps the store. */
export function renderWithStore(ui: ReactElement, store: Store = createStore()) {
  const wrapper = ({ children }: { children: ReactNode }) => (
    <StoreContext.Provider value={store}>{children}</StoreContext.Provider>
  );
  return { store, ...render(ui, { wrapper }) };
}
