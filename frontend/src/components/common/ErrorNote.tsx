import type { Problem } from '../../state/problem';
import { Icon } from './Icon';

/** An error where the user is looking: what went wrong and what to do. */
export function ErrorNote({ problem, onDismiss, title }: { problem: Problem; onDismiss?: () => void; title?: string }) {
  return (
    <div className="error-note" role="alert">
      <Icon name="warning" className="error-note__icon" />
      <div className="error-note__body">
        {title && <div className="error-note__title">{title}</div>}
        <div className="error-note__message">{problem.message}</div>
        {problem.hint && <div className="error-note__hint">{problem.hint}</div>}
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
          <Icon name="x" />
        </button>
      )}
    </div>
  );
}
