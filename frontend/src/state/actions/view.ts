// Which view is shown, and moving the user's attention to the composer.
import type { Store, View } from '../store';

export function show(store: Store, view: View): void {
  store.set({ view });
}

export function focusComposer(store: Store, draft?: string): void {
  store.set((s) => ({
    view: { kind: 'chat' },
    focusComposer: s.focusComposer + 1,
    draft: draft === undefined ? s.draft : { text: draft, nonce: (s.draft?.nonce ?? 0) + 1 },
  }));
}
