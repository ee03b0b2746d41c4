import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { ApiError, getVersion, isDesktop } from './api';

describe('welcome screen', () => {
  it('introduces Loupe and lists every supported format', async () => {
    render(<App />);

    expect(screen.getByRole('heading', { level: 1, name: 'Loupe' })).toBeInTheDocument();
    expect(screen.getByText('Ask your data questions, locally.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Open data…' })).toBeInTheDocument();

    const formats = within(screen.getByRole('list', { name: 'Supported formats' }));
    for (const name of ['CSV / TSV', 'Parquet', 'JSON', 'Excel', 'DuckDB', 'SQLite']) {
      expect(formats.getByText(name)).toBeInTheDocument();
    }

    // Without the Wails bridge (plain browser, Vitest) the screen still renders.
    expect(await screen.findByTestId('version')).toHaveTextContent('browser preview');
  });

  it('shows the version the backend reports', async () => {
    const Version = vi.fn().mockResolvedValue('1.2.3');
    window.go = { app: { App: { Version } } };

    render(<App />);

    expect(await screen.findByTestId('version')).toHaveTextContent('version 1.2.3');
    expect(Version).toHaveBeenCalled();
  });
});

describe('api', () => {
  it('returns null without a backend', async () => {
    expect(isDesktop()).toBe(false);
    await expect(getVersion()).resolves.toBeNull();
  });

  it('wraps backend errors in ApiError', async () => {
    window.go = { app: { App: { Version: vi.fn().mockRejectedValue('disk on fire') } } };

    const failure = getVersion();
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toThrow('Version: disk on fire');
  });
});
