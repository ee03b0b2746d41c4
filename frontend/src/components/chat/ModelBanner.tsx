import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import './chat.css';

/**
 * Says what to do when no model answers, and that everything without a
 * model (loading, preview, SQL, charts) still works. The status's hint says
 * what to do for the failure seen; the generic steps show only without one,
 * so the first start does not give the same advice twice.
 */
export function ModelBanner({ compact = false }: { compact?: boolean }) {
  const model = useStore((s) => s.status?.model);
  const a = useActions();
  if (!model || model.ok) return null;
  return (
    <div className={compact ? 'banner banner--compact' : 'banner'} role="status" data-testid="model-banner">
      <Icon name="warning" className="banner__icon" />
      <div className="banner__body">
        <div className="banner__title">{compact ? model.message : 'No model to answer questions yet'}</div>
        {!compact && <div>{model.message}</div>}
        {model.hint && <div className="banner__hint">{model.hint}</div>}
        {!compact && (
          <div className="banner__more">
            {model.hint
              ? 'Opening files, previews, the SQL console and charts work without one.'
              : 'To answer questions Loupe needs a model: install Ollama from ollama.com/download, open it, and pull a ' +
                'recommended model in Settings — or set up a hosted model there. Opening files, previews, the SQL ' +
                'console and charts work without one.'}
          </div>
        )}
      </div>
      <div className="banner__actions">
        <button type="button" className="button button--small" onClick={() => a.show({ kind: 'settings' })}>
          Settings
        </button>
        <button type="button" className="button button--small button--ghost" onClick={() => void a.refreshStatus()}>
          Check again
        </button>
      </div>
    </div>
  );
}
