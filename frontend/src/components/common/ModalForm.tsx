import type { KeyboardEvent, ReactNode } from 'react';

interface Props {
  /** The id of the dialog's heading. */
  labelledBy: string;
  /** Classes added to the box's modal__box. */
  className?: string;
  testId?: string;
  /** Called on a press outside the box. */
  onBackdrop: () => void;
  onKeyDown?: (e: KeyboardEvent<HTMLFormElement>) => void;
  /** Called on submit (Enter in a field, or the submit button); the page is not reloaded. */
  onSubmit: () => void;
  children: ReactNode;
}

/** ModalForm is a modal dialog whose box is a form: a press outside the box calls onBackdrop, one inside does not. */
export function ModalForm({ labelledBy, className, testId, onBackdrop, onKeyDown, onSubmit, children }: Props) {
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-labelledby={labelledBy} onMouseDown={onBackdrop}>
      <form
        className={className ? `modal__box ${className}` : 'modal__box'}
        data-testid={testId}
        onMouseDown={(e) => e.stopPropagation()}
        onKeyDown={onKeyDown}
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
