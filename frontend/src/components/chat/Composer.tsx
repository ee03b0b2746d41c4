import { useEffect, useRef, useState } from 'react';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import './chat.css';

/**
 * The question box: Enter sends, Shift+Enter starts a new line. While a run
 * goes on it offers Stop (Esc works anywhere).
 */
export function Composer({
  running,
  waitingForAnswer,
  onSend,
  onStop,
}: {
  running: boolean;
  waitingForAnswer: boolean;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
}) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const focusTick = useStore((s) => s.focusComposer);
  const draft = useStore((s) => s.draft);

  useEffect(() => {
    if (focusTick > 0) ref.current?.focus();
  }, [focusTick]);
  useEffect(() => {
    if (draft) {
      setText(draft.text);
      ref.current?.focus();
    }
  }, [draft]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(200, el.scrollHeight)}px`;
  }, [text]);

  const send = async () => {
    const q = text.trim();
    if (q === '' || running || sending) return;
    setSending(true);
    const ok = await onSend(q);
    setSending(false);
    if (ok) setText('');
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        ref={ref}
        className="composer__input"
        aria-label="Question"
        rows={1}
        placeholder={
          waitingForAnswer ? 'Answer the question, or ask something else…' : 'Ask a question about your data…'
        }
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      {running ? (
        <button type="button" className="button button--stop" onClick={onStop} title="Stop (Esc)">
          <Icon name="stop" size={14} /> Stop <kbd>Esc</kbd>
        </button>
      ) : (
        <button type="submit" className="button button--primary" disabled={text.trim() === '' || sending} title="Send (Enter)">
          <Icon name="send" size={14} /> Send
        </button>
      )}
    </form>
  );
}
