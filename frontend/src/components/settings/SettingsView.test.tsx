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
  fake.listModelsFor.mockResolvedValue([
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
    // A change of provider is tried before it is kept.
    expect(fake.saveSettings.mock.calls[0]![0]).toEqual({ ...settings, provider: 'openai', maxSteps: 20, test: true });

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
    expect(fake.saveSettings.mock.calls[0]![0]).toEqual({ ...settings, embedModel: 'nomic-embed-text', test: true });
  });

  it('marks embedding models as such, and a pulled one fills the embedding model, not the chat model', async () => {
    const embedder = { name: 'nomic-embed-text', tools: false, toolsKnown: true, contextLength: 2048, size: 274_000_000, warning: 'This model has no native tool calling.' };
    fake.listModelsFor.mockResolvedValue([{ name: 'qwen3:8b', tools: true, toolsKnown: true, contextLength: 40960, size: 5_200_000_000 }, embedder]);
    renderWithStore(<SettingsView />, store());
    const models = within(await screen.findByRole('radiogroup', { name: 'Installed models' }));
    const row = models.getByText('nomic-embed-text').closest('label')!;
    expect(row).toHaveTextContent('embedding · use for table search');
    // It cannot be picked as the model that answers.
    expect(within(row).getByRole('radio')).toBeDisabled();
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

  it('Refresh lists the models of the address in the field, before Save', async () => {
    renderWithStore(<SettingsView />, store());
    await screen.findByRole('radiogroup', { name: 'Installed models' });
    expect(fake.listModelsFor).toHaveBeenLastCalledWith(settings);
    fireEvent.change(screen.getByRole('textbox', { name: 'Ollama URL' }), { target: { value: 'http://gpu-box:11434' } });
    fireEvent.click(screen.getByRole('button', { name: 'Refresh the models' }));
    await waitFor(() => expect(fake.listModelsFor).toHaveBeenLastCalledWith({ ...settings, ollamaURL: 'http://gpu-box:11434' }));
    expect(fake.saveSettings).not.toHaveBeenCalled();
  });

  it('a change that does not work is not saved: one error, no “Settings saved”, and Save anyway', async () => {
    fake.saveSettings.mockImplementation(async (s: SettingsUpdate) => {
      if (s.test) throw { code: 'model', message: 'Not saved: Cannot reach http://gpu-box:11434.', hint: 'Start Ollama. Save anyway to keep these settings as they are.' };
    });
    const { store: st } = renderWithStore(<SettingsView />, store());
    fireEvent.change(await screen.findByRole('textbox', { name: 'Ollama URL' }), { target: { value: 'http://gpu-box:11434' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const error = await screen.findByTestId('save-error');
    expect(error).toHaveTextContent('Not saved: Cannot reach http://gpu-box:11434.');
    expect(st.get().notices.map((n) => n.message)).not.toContain('Settings saved');
    fireEvent.click(within(error).getByRole('button', { name: 'Save anyway' }));
    await waitFor(() => expect(fake.saveSettings).toHaveBeenCalledTimes(2));
    expect(fake.saveSettings.mock.calls[1]![0]).toEqual({ ...settings, ollamaURL: 'http://gpu-box:11434' });
    await waitFor(() => expect(st.get().notices.map((n) => n.message)).toContain('Settings saved'));
  });

  it('the OpenAI-compatible tab lists the server’s models and tests the form', async () => {
    fake.listModelsFor.mockResolvedValue([
      { name: 'gpt-oss-20b', tools: true, toolsKnown: true, contextLength: 0, size: 0 },
      { name: 'text-embedding-3-small', tools: false, toolsKnown: false, contextLength: 0, size: 0, embedding: true },
    ]);
    fake.testSettings.mockResolvedValue({ ok: false, message: 'http://localhost:1234/v1 does not offer gpt-4.1', hint: 'Pick one of its models in Settings (it offers gpt-oss-20b).' });
    renderWithStore(<SettingsView />, store());
    fireEvent.click(await screen.findByRole('radio', { name: 'OpenAI-compatible' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Base URL' }), { target: { value: 'http://localhost:1234/v1' } });
    fireEvent.change(screen.getByLabelText(/^API key/), { target: { value: 'sk-typed' } });
    fireEvent.click(screen.getByRole('button', { name: 'Refresh the models' }));
    await waitFor(() =>
      expect(fake.listModelsFor).toHaveBeenLastCalledWith(expect.objectContaining({ provider: 'openai', openaiBaseURL: 'http://localhost:1234/v1', apiKey: 'sk-typed' })),
    );
    const options = Array.from(screen.getByTestId('openai-models').querySelectorAll('option')).map((o) => o.value);
    expect(options).toEqual(['gpt-oss-20b']);
    fireEvent.change(screen.getByRole('combobox', { name: /Model/ }), { target: { value: 'gpt-4.1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Test' }));
    expect(await screen.findByTestId('settings-test')).toHaveTextContent('does not offer gpt-4.1');
    expect(fake.testSettings).toHaveBeenCalledWith(expect.objectContaining({ model: 'gpt-4.1', apiKey: 'sk-typed' }));
    expect(fake.saveSettings).not.toHaveBeenCalled();
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
