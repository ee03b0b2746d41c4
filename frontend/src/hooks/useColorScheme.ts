import { useEffect, useState } from 'react';

/** The colour scheme in force: the theme setting on <html>, else the OS's. */
export function effectiveScheme(): 'light' | 'dark' {
  const forced = document.documentElement.dataset['theme'];
  if (forced === 'light' || forced === 'dark') return forced;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/**
 * followScheme keeps data-scheme on <html> at the scheme in force
 * (effectiveScheme), as the OS's preference or the theme setting changes;
 * styles/theme.css picks the colour tokens by it, so the dark theme is
 * written once for both ways of asking for it. Called once, before the first
 * render; returns the function that stops following.
 */
export function followScheme(): () => void {
  const root = document.documentElement;
  const apply = () => {
    const scheme = effectiveScheme();
    if (root.dataset['scheme'] !== scheme) root.dataset['scheme'] = scheme;
  };
  apply();
  const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
  mq?.addEventListener?.('change', apply);
  const obs = new MutationObserver(apply);
  obs.observe(root, { attributes: true, attributeFilter: ['data-theme'] });
  return () => {
    mq?.removeEventListener?.('change', apply);
    obs.disconnect();
  };
}

/** useColorScheme follows effectiveScheme as the OS or the setting changes. */
export function useColorScheme(): 'light' | 'dark' {
  const [scheme, setScheme] = useState(effectiveScheme);
  useEffect(() => {
    const update = () => setScheme(effectiveScheme());
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    mq?.addEventListener?.('change', update);
    const obs = new MutationObserver(update);
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      mq?.removeEventListener?.('change', update);
      obs.disconnect();
    };
  }, []);
  return scheme;
}

/** useTheme applies the theme setting to the page. */
export function useTheme(theme: 'system' | 'light' | 'dark' | undefined): void {
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'light' || theme === 'dark') root.dataset['theme'] = theme;
    else delete root.dataset['theme'];
  }, [theme]);
}
