import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { emit, fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { createStore, initialState } from '../../state/store';
import { SettingsView } from './SettingsView';
import type { Settings, SettingsUpdate } from '../../api';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const settings: Settings = {
  provider: 'ollama',
  model: 'qwen3:8b',
  ollamaURL: 'http://127.0.0.1:11434',
  openaiBaseURL: 'https://api.example.com/v1',
  hasAPIKey: true,
  maxSteps: 15,
  timeoutSeconds: 300,
  theme: 'system',
};

function store() {
  return createStore({ ...initialState(), view: { kind: 'settings' }, settings });
}

beforeEach(() => {
  resetFake();
  fake.getSettings.mockResolvedValue(settings);
  fake.listModels.mockResolvedValue([
    { name: 'qwen3:8b', tools: true, toolsKnown: true, contextLength: 40960, size: 5_200_000_000, recommended: true },
    { name: 'gemma2:2b', tools: false, toolsKnown: true, contextLength: 8192, size: 1_600_000_000, warning: 'Too small to plan well.' },
  ]);
});

describe('SettingsView', () => {
  it('lists installed models, marking tool support and the recommended one', async () => {
    renderWithStore(<SettingsView />, store());
    const models = within(await screen.findByRole('radiogroup', { name: 'Installed models' }));
    const qwen = models.getByText('qwen3:8b').closest('label')!;
    expect(qwen).toHaveTextContent('recommended');
    expect(qwen).toHaveTextContent('tools');
    const gemma = models.getByText('gemma2:2b').closest('label')!;
    expect(gemma).toHaveTextContent('no tools');
    expect(gemma).toHaveTextContent('Too small to plan well.');

    fireEvent.click(within(gemma).getByRole('radio'));
    expect(screen.getByText(/gemma2:2b cannot call tools/)).toBeInTheDocument();
  });

  it('saves the provider and limits, sending the API key only when typed and never showing it', async () => {
    let current = settings;
    fake.saveSettings.mockImplementation(async (s: SettingsUpdate) => {
      const { apiKey: _key, ...rest } = s;
      current = { ...rest, hasAPIKey: true };
    });
    fake.getSettings.mockImplementation(async () => current);
    renderWithStore(<SettingsView />, store());
    fireEvent.click(await screen.findByRole('radio', { name: 'OpenAI-compatible' }));
    const key = screen.getByPlaceholderText(/saved in the OS keychain/) as HTMLInputElement;
    expect(key.type).toBe('password');
    expect(key.value).toBe('');
    fireEvent.change(screen.getByRole('spinbutton', { name: 'Steps per question' }), { target: { value: '20' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.saveSettings).toHaveBeenCalledTimes(1));
    expect(fake.saveSettings.mock.calls[0]![0]).toEqual({ ...settings, provider: 'openai', maxSteps: 20 });

    fireEvent.change(key, { target: { value: 'sk-secret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.saveSettings).toHaveBeenCalledTimes(2));
    expect(fake.saveSettings.mock.calls[1]![0]).toMatchObject({ apiKey: 'sk-secret' });
    await waitFor(() => expect(key.value).toBe(''));
  });

  it('a key belongs to its host: another base URL shows an empty key field and says the saved key is not sent there', async () => {
    fake.getSettings.mockResolvedValue({ ...settings, provider: 'openai', apiKeyFor: 'https://api.example.com' });
    renderWithStore(<SettingsView />, createStore({ ...initialState(), view: { kind: 'settings' }, settings: { ...settings, provider: 'openai', apiKeyFor: 'https://api.example.com' } }));
    const key = (await screen.findByLabelText(/^API key/)) as HTMLInputElement;
    expect(key.placeholder).toMatch(/saved in the OS keychain/);
    expect(screen.queryByRole('note')).toBeNull();
    // Same origin, another path and the default port: still its key.
    fireEvent.change(screen.getByRole('textbox', { name: 'Base URL' }), { target: { value: 'HTTPS://api.example.com:443/v2' } });
    expect(screen.queryByRole('note')).toBeNull();
    fireEvent.change(screen.getByRole('textbox', { name: 'Base URL' }), { target: { value: 'http://localhost:1234/v1' } });
    expect(key.value).toBe('');
    expect(key.placeholder).toBe('sk-…');
    expect(screen.getByRole('note')).toHaveTextContent('The key you saved for https://api.example.com is not sent to http://localhost:1234');
  });

  it('pulls a model with a progress bar', async () => {
    let done!: () => void;
    fake.pullModel.mockImplementation(() => new Promise<undefined>((r) => (done = () => r(undefined))));
    renderWithStore(<SettingsView />, store());
    fireEvent.change(await screen.findByRole('textbox', { name: 'Model to pull' }), { target: { value: 'llama3.2:3b' } });
    fireEvent.click(screen.getByRole('button', { name: /Pull/ }));
    expect(fake.pullModel).toHaveBeenCalledWith('llama3.2:3b');
    act(() => emit('model:pull', { name: 'llama3.2:3b', status: 'downloading', completed: 500_000_000, total: 2_000_000_000 }));
    const bar = screen.getByRole('progressbar', { name: 'Pulling llama3.2:3b' });
    expect((bar.firstChild as HTMLElement).style.width).toBe('25%');
    expect(screen.getByText(/downloading/)).toHaveTextContent('477 MB of 1.9 GB');
    await act(async () => done());
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('sets the embedding model of table search’s semantic boost, off when empty', async () => {
    renderWithStore(<SettingsView />, store());
    const field = await screen.findByRole('textbox', { name: 'Embedding model (optional)' });
    expect(field).toHaveValue('');
    expect(field).toHaveAccessibleDescription(/optional semantic boost for table search.*leave\s+empty to keep it off/i);
    fireEvent.change(field, { target: { value: 'nomic-embed-text' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.saveSettings).toHaveBeenCalledTimes(1));
    expect(fake.saveSettings.mock.calls[0]![0]).toEqual({ ...settings, embedModel: 'nomic-embed-text' });
  });

  it('marks embedding models as such, and a pulled one fills the embedding model, not the chat model', async () => {
    const embedder = { name: 'nomic-embed-text', tools: false, toolsKnown: true, contextLength: 2048, size: 274_000_000, warning: 'This model has no native tool calling.' };
    fake.listModels.mockResolvedValue([{ name: 'qwen3:8b', tools: true, toolsKnown: true, contextLength: 40960, size: 5_200_000_000 }, embedder]);
    renderWithStore(<SettingsView />, store());
    const models = within(await screen.findByRole('radiogroup', { name: 'Installed models' }));
    const row = models.getByText('nomic-embed-text').closest('label')!;
    expect(row).toHaveTextContent('embedding · for table search');
    expect(row).not.toHaveTextContent('no tools');
    expect(row).not.toHaveTextContent('no native tool calling');

    fireEvent.change(screen.getByRole('textbox', { name: 'Model to pull' }), { target: { value: 'mxbai-embed-large' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: /Pull/ }));
    });
    expect(fake.pullModel).toHaveBeenCalledWith('mxbai-embed-large');
    expect(screen.getByRole('textbox', { name: 'Embedding model (optional)' })).toHaveValue('mxbai-embed-large');
    expect(models.getByRole('radio', { name: /qwen3:8b/ })).toBeChecked();
  });

  it('applies the theme it saves', async () => {
    const { store: s } = renderWithStore(<SettingsView />, store());
    fireEvent.click(await screen.findByRole('radio', { name: 'Dark' }));
    fake.getSettings.mockResolvedValue({ ...settings, theme: 'dark' });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(s.get().settings?.theme).toBe('dark'));
  });
});

describe('Settings › About', () => {
  it('shows the version the backend reports', async () => {
    fake.getVersion.mockResolvedValue('v1.4.0-3-gabc1234');
    renderWithStore(<SettingsView />, store());
    const about = await screen.findByRole('region', { name: 'About' });
    await waitFor(() => expect(within(about).getByTestId('about-version')).toHaveTextContent('v1.4.0-3-gabc1234'));
  });

  it('says when there is no backend to ask', async () => {
    fake.getVersion.mockResolvedValue(null);
    renderWithStore(<SettingsView />, store());
    const about = await screen.findByRole('region', { name: 'About' });
    await waitFor(() => expect(within(about).getByTestId('about-version')).toHaveTextContent('version unknown'));
  });
});
