import { useEffect } from 'react';
import { useActions } from '../state/actions';

/**
 * The app's keyboard shortcuts: Ctrl/Cmd+K focuses the question box,
 * Ctrl/Cmd+O opens files, Esc stops the running answer of the chat shown.
 */
export function useShortcuts(): void {
  const a = useActions();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && !e.shiftKey && !e.altKey && key === 'k') {
        e.preventDefault();
        a.focusComposer();
      } else if (mod && !e.shiftKey && !e.altKey && key === 'o') {
        e.preventDefault();
        void a.chooseAndOpen();
      } else if (e.key === 'Escape' && !e.defaultPrevented) {
        const s = a.store.get();
        if (s.view.kind === 'chat' && s.chatId && s.running[s.chatId] && !s.pathDialog) {
          e.preventDefault();
          void a.cancelRun(s.chatId);
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [a]);
}
