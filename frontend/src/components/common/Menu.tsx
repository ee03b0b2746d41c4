import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Icon } from './Icon';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  /** Ask "Sure?" on the first click; act on the second. */
  confirm?: string;
}

/**
 * A "⋯" button opening a small menu of actions, keyboard-operable as the
 * ARIA menu-button pattern says: Enter, Space or ↓ opens it with focus on the
 * first item (↑ on the last); ↑/↓ move (wrapping), Home/End jump; Enter or
 * Space chooses; Esc closes it and returns focus to the button; Tab closes it
 * and moves on.
 */
export function Menu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [arming, setArming] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  // Which item takes focus when the menu opens: the first, or (↑) the last.
  const startAt = useRef<'first' | 'last'>('first');
  const close = (refocus: boolean) => {
    setOpen(false);
    setArming(null);
    if (refocus) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    const itemsNow = list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]');
    if (itemsNow && itemsNow.length > 0) (startAt.current === 'last' ? itemsNow[itemsNow.length - 1]! : itemsNow[0]!).focus();
    const outside = (e: MouseEvent) => {
      if (ref.current?.contains(e.target as Node)) return;
      setOpen(false);
      setArming(null);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);
  const move = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = Array.from(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const at = all.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => {
      e.preventDefault();
      e.stopPropagation();
      all[(i + all.length) % all.length]?.focus();
    };
    switch (e.key) {
      case 'ArrowDown':
        return go(at + 1);
      case 'ArrowUp':
        return go(at - 1);
      case 'Home':
        return go(0);
      case 'End':
        return go(all.length - 1);
      case 'Escape':
        e.preventDefault();
        e.stopPropagation();
        return close(true);
      case 'Tab':
        return close(false);
    }
  };
  return (
    <div className="menu" ref={ref}>
      <button
        ref={button}
        type="button"
        className="icon-button menu__button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={(e) => {
          e.stopPropagation();
          startAt.current = 'first';
          setOpen((o) => !o);
          setArming(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            startAt.current = e.key === 'ArrowUp' ? 'last' : 'first';
            setOpen(true);
          }
        }}
      >
        <Icon name="more" />
      </button>
      {open && (
        <div className="menu__list" role="menu" aria-label={label} ref={list} onKeyDown={move}>
          {items.map((it) => (
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              key={it.label}
              className={it.danger ? 'menu__item menu__item--danger' : 'menu__item'}
              onClick={(e) => {
                e.stopPropagation();
                if (it.confirm && arming !== it.label) {
                  setArming(it.label);
                  return;
                }
                // Focus goes back to the button first, so a dialog the item
                // opens returns it there when it closes.
                close(true);
                it.onSelect();
              }}
            >
              {arming === it.label ? it.confirm : it.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** A labelled group of buttons with a shared look. */
export function Toolbar({ children, label }: { children: ReactNode; label: string }) {
  return (
    <div className="toolbar" role="toolbar" aria-label={label}>
      {children}
    </div>
  );
}
