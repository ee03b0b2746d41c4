import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';

interface Props {
  /** The id of the dialog's heading. */
  labelledBy: string;
  /** Classes added to the box's modal__box. */
  className?: string;
  testId?: string;
  /** Called on a press outside the box, and on Esc unless onKeyDown handled it. */
  onBackdrop: () => void;
  onKeyDown?: (e: KeyboardEvent<HTMLFormElement>) => void;
  /** Called on submit (Enter in a field, or the submit button); the page is not reloaded. */
  onSubmit: () => void;
  children: ReactNode;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * ModalForm is a modal dialog whose box is a form: a press outside the box
 * calls onBackdrop, one inside does not. Keyboard users get what WCAG asks of
 * a modal: focus moves into the box when it opens (unless a field took it
 * already), Tab and Shift+Tab stay inside it, Esc closes it (onKeyDown may
 * handle Esc itself, as it did before), and focus returns to where it was
 * when the dialog closes.
 */
export function ModalForm({ labelledBy, className, testId, onBackdrop, onKeyDown, onSubmit, children }: Props) {
  const box = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const form = box.current;
    if (form && !form.contains(document.activeElement)) {
      const first = form.querySelector<HTMLElement>('textarea, input:not([type="radio"]):not([type="checkbox"]):not([disabled])') ?? form.querySelector<HTMLElement>(FOCUSABLE);
      (first ?? form).focus();
    }
    return () => {
      // The opener may be gone (a menu that closed): then focus stays where it lands.
      if (opener && opener.isConnected && !opener.closest('[role="dialog"]')) opener.focus();
    };
  }, []);
  const keyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    onKeyDown?.(e);
    if (e.key === 'Escape') {
      if (!onKeyDown) onBackdrop();
      // Esc closed the dialog; it does not also stop a running answer.
      e.preventDefault();
    }
    if (e.key === 'Tab' && box.current) trapTab(e, box.current);
  };
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-labelledby={labelledBy} onMouseDown={onBackdrop}>
      <form
        ref={box}
        tabIndex={-1}
        className={className ? `modal__box ${className}` : 'modal__box'}
        data-testid={testId}
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={keyDown}
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        {children}
      </form>
    </div>
  );
}

/** trapTab keeps Tab and Shift+Tab inside the box: past the last field is the first. */
function trapTab(e: KeyboardEvent<HTMLElement>, box: HTMLElement): void {
  const all = Array.from(box.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null || el === document.activeElement);
  if (all.length === 0) return;
  const first = all[0]!;
  const last = all[all.length - 1]!;
  if (e.shiftKey && (document.activeElement === first || document.activeElement === box)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}
