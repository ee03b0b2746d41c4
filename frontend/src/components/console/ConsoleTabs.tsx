import { useState, type KeyboardEvent } from 'react';
import { useActions } from '../../state/actions';
import { useStore } from '../../state/store';
import { Icon } from '../common/Icon';
import { InlineEdit } from '../common/InlineEdit';

/**
 * The console's tabs: each a button that shows it (F2 or a double click
 * renames it, Delete closes it) with its close button beside it, and a
 * button that adds one. A tab running a query shows a spinner.
 */
export function ConsoleTabs() {
  const a = useActions();
  const tabs = useStore((s) => s.consoleTabs);
  const active = useStore((s) => s.consoleTab);
  const [editing, setEditing] = useState<string | null>(null);

  const onKey = (e: KeyboardEvent, id: string, i: number) => {
    const move = (to: number) => {
      e.preventDefault();
      const t = tabs[(to + tabs.length) % tabs.length]!;
      a.selectConsoleTab(t.id);
      document.getElementById(`console-tab-${t.id}`)?.focus();
    };
    if (e.key === 'F2') {
      e.preventDefault();
      setEditing(id);
    } else if (e.key === 'Delete') {
      e.preventDefault();
      a.closeConsoleTab(id);
    } else if (e.key === 'ArrowRight') move(i + 1);
    else if (e.key === 'ArrowLeft') move(i - 1);
  };

  return (
    <div className="console-tabs">
      <ul className="console-tabs__list" aria-label="Query tabs">
        {tabs.map((t, i) => (
          <li key={t.id} className={t.id === active ? 'console-tab console-tab--active' : 'console-tab'} data-testid="console-tab">
            {editing === t.id ? (
              <InlineEdit
                value={t.title}
                label="Tab name"
                onCancel={() => setEditing(null)}
                onCommit={(v) => {
                  setEditing(null);
                  a.renameConsoleTab(t.id, v);
                }}
              />
            ) : (
              <button
                type="button"
                id={`console-tab-${t.id}`}
                className="console-tab__open"
                aria-current={t.id === active ? 'true' : undefined}
                title={`${t.title} — F2 or double-click renames, Delete closes`}
                onClick={() => a.selectConsoleTab(t.id)}
                onDoubleClick={() => setEditing(t.id)}
                onKeyDown={(e) => onKey(e, t.id, i)}
              >
                {t.running && <span className="spinner spinner--small" aria-label="running" />}
                <span className="console-tab__title">{t.title}</span>
              </button>
            )}
            <button
              type="button"
              className="icon-button console-tab__close"
              aria-label={`Close ${t.title}`}
              title={t.running ? 'Stop its query and close the tab' : 'Close the tab'}
              onClick={() => a.closeConsoleTab(t.id)}
            >
              <Icon name="x" size={12} />
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="icon-button" aria-label="New query tab" title="New query tab" onClick={() => a.newConsoleTab()}>
        <Icon name="plus" size={14} />
      </button>
    </div>
  );
}
