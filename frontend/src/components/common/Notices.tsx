import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { Icon } from './Icon';

/** Passing messages in the corner; errors stay until dismissed. */
export function Notices() {
  const notices = useStore((s) => s.notices);
  const a = useActions();
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice--${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <Icon name={n.kind === 'info' ? 'check' : 'warning'} className="notice__icon" />
          <div className="notice__body">
            <div>{n.message}</div>
            {n.hint && <div className="notice__hint">{n.hint}</div>}
          </div>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => a.dismissNotice(n.id)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      ))}
    </div>
  );
}
