import { afterEach, describe, expect, it, vi } from 'vitest';
import { followScheme } from './useColorScheme';

// styles/theme.css picks the dark tokens by data-scheme alone; this is what
// sets it: the theme setting (data-theme) when forced, else the OS.
describe('followScheme', () => {
  const root = document.documentElement;
  let osDark = false;
  const listeners: (() => void)[] = [];
  const stops: (() => void)[] = [];
  vi.stubGlobal('matchMedia', (q: string) => ({
    get matches() {
      return q.includes('dark') && osDark;
    },
    addEventListener: (_: string, l: () => void) => listeners.push(l),
    removeEventListener: () => undefined,
  }));

  afterEach(() => {
    stops.splice(0).forEach((s) => s());
    delete root.dataset['theme'];
    delete root.dataset['scheme'];
    osDark = false;
  });

  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('follows the OS when the setting says system', async () => {
    osDark = true;
    stops.push(followScheme());
    expect(root.dataset['scheme']).toBe('dark');
    osDark = false;
    listeners.forEach((l) => l());
    expect(root.dataset['scheme']).toBe('light');
  });

  it('the setting wins over the OS, both ways, and system gives it back', async () => {
    osDark = true;
    stops.push(followScheme());
    root.dataset['theme'] = 'light';
    await settle();
    expect(root.dataset['scheme']).toBe('light');
    osDark = false;
    root.dataset['theme'] = 'dark';
    await settle();
    expect(root.dataset['scheme']).toBe('dark');
    delete root.dataset['theme'];
    await settle();
    expect(root.dataset['scheme']).toBe('light');
  });
});
