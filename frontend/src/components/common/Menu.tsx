import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Icon } from './Icon';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  /** Ask "Sure?" on the first click; act on the second. */
  confirm?: string;
}

/** A "⋯" button opening a small menu of actions. */
export function Menu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [arming, setArming] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e instanceof KeyboardEvent && e.key !== 'Escape') return;
      if (e instanceof MouseEvent && ref.current?.contains(e.target as Node)) return;
      setOpen(false);
      setArming(null);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div className="menu" ref={ref}>
      <button
        type="button"
        className="icon-button menu__button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={(e) => {
          e.stopPropagation();
          setOpen((o) => !o);
          setArming(null);
        }}
      >
        <Icon name="more" />
      </button>
      {open && (
        <div className="menu__list" role="menu">
          {items.map((it) => (
            <button
              type="button"
              role="menuitem"
              key={it.label}
              className={it.danger ? 'menu__item menu__item--danger' : 'menu__item'}
              onClick={(e) => {
                e.stopPropagation();
                if (it.confirm && arming !== it.label) {
                  setArming(it.label);
                  return;
                }
                setOpen(false);
                setArming(null);
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
