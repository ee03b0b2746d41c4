import { useEffect, useState } from 'react';
import * as api from '../../api';
import type { Check, ModelInfo, Settings } from '../../api';
import { formatBytes } from '../../format';
import { useActions } from '../../state/actions';
import { useBackendEvent } from '../../state/events';
import { problemOf, type Problem } from '../../state/problem';
import { useStore } from '../../state/store';
import { ErrorNote } from '../common/ErrorNote';
import { Icon } from '../common/Icon';
import { PrivacySettings } from '../privacy/Privacy';
import { About } from './About';
import { McpSettings } from './McpSettings';
import { SandboxBuild } from './SandboxBuild';
import './settings.css';

interface Pull {
  name: string;
  status: string;
  completed: number;
  total: number;
  error?: Problem;
}

/**
 * originOf is a base URL's origin as the backend binds keys to it
 * (provider.Origin): scheme://host[:port], lower-case, default port
 * dropped; '' when it is not an http(s) URL.
 */
function originOf(baseURL: string): string {
  try {
    const u = new URL(baseURL.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? `${u.protocol}//${u.host}`.toLowerCase() : '';
  } catch {
    return '';
  }
}

/** keyFits: a key is stored for the host the form's base URL names. */
function keyFits(s: Settings): boolean {
  return s.apiKeyFor ? s.apiKeyFor === originOf(s.openaiBaseURL) : s.hasAPIKey;
}

/** keyElsewhere: a key is stored, but for another host than the form's. */
function keyElsewhere(s: Settings): boolean {
  return !!s.apiKeyFor && originOf(s.openaiBaseURL) !== '' && s.apiKeyFor !== originOf(s.openaiBaseURL);
}

/**
 * Settings: the model provider (Ollama with its installed models and
 * pulling; or an OpenAI-compatible service with a key kept in the OS
 * keychain), the agent's limits, and the theme.
 */
export function SettingsView() {
  const a = useActions();
  const saved = useStore((s) => s.settings);
  const status = useStore((s) => s.status);
  const [form, setForm] = useState<Settings | null>(saved);
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [modelsError, setModelsError] = useState<Problem | null>(null);
  const [pullName, setPullName] = useState('');
  const [pull, setPull] = useState<Pull | null>(null);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<Problem | null>(null);
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<Check | null>(null);

  useEffect(() => {
    if (form === null && saved !== null) setForm(saved);
  }, [saved, form]);

  // The models of the server the form names now (its address, its typed
  // key), saved or not: Refresh after editing the address lists that one.
  const loadModels = async (f: Settings | null = form, key = apiKey) => {
    try {
      setModels(f ? await api.listModelsFor(key === '' ? f : { ...f, apiKey: key }) : await api.listModels());
      setModelsError(null);
    } catch (err) {
      setModels([]);
      setModelsError(problemOf(err));
    }
  };
  useEffect(() => {
    void loadModels(saved);
    // Once, for the settings as saved; later lists follow the form (Refresh).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useBackendEvent('model:pull', (p) => {
    setPull((cur) => (cur && cur.name === p.name ? { ...cur, ...p } : cur));
  });

  if (form === null) {
    return (
      <div className="settings">
        <header className="view-head">
          <h1 className="view-head__title">Settings</h1>
        </header>
        <div className="settings__scroll">Loading…</div>
      </div>
    );
  }

  const set = <K extends keyof Settings>(k: K, v: Settings[K]) => setForm({ ...form, [k]: v });
  const dirty = JSON.stringify(form) !== JSON.stringify(saved) || apiKey !== '';

  // A change of server, model or key is tried before it is kept (test):
  // settings that do not work are not saved, and say why, once.
  const modelChanged =
    saved === null ||
    apiKey !== '' ||
    (['provider', 'model', 'ollamaURL', 'openaiBaseURL', 'embedModel'] as const).some((k) => form[k] !== saved[k]);
  const save = async (anyway = false) => {
    setSaving(true);
    setSaveError(null);
    setTested(null);
    try {
      const update = apiKey === '' ? form : { ...form, apiKey };
      await api.saveSettings(modelChanged && !anyway ? { ...update, test: true } : update);
      setApiKey('');
      await a.refreshSettings();
      const now = a.store.get().settings;
      setForm(now);
      a.notify('info', 'Settings saved');
      void a.refreshStatus();
      void loadModels(now, '');
    } catch (err) {
      setSaveError(problemOf(err));
    } finally {
      setSaving(false);
    }
  };

  const test = async () => {
    setTesting(true);
    setTested(null);
    try {
      setTested(await api.testSettings(apiKey === '' ? form : { ...form, apiKey }));
    } catch (err) {
      const p = problemOf(err);
      setTested({ ok: false, message: p.message, hint: p.hint });
    } finally {
      setTesting(false);
    }
  };

  const startPull = async () => {
    const name = pullName.trim();
    if (name === '') return;
    setPull({ name, status: 'starting', completed: 0, total: 0 });
    try {
      await api.pullModel(name);
      setPull(null);
      setPullName('');
      a.notify('info', `Pulled ${name}`);
      await loadModels();
      if (isEmbedding(name)) set('embedModel', name);
      else set('model', name);
    } catch (err) {
      setPull({ name, status: 'failed', completed: 0, total: 0, error: problemOf(err) });
    }
  };

  const selected = models?.find((m) => m.name === form.model);
  return (
    <div className="settings">
      <header className="view-head">
        <h1 className="view-head__title">Settings</h1>
        <span className="view-head__spacer" />
        <button type="button" className="button button--ghost" disabled={!dirty || saving} onClick={() => { setForm(saved); setApiKey(''); }}>
          Revert
        </button>
        <button type="button" className="button button--primary" disabled={!dirty || saving} onClick={() => void save()}>
          {saving ? (modelChanged ? 'Testing…' : 'Saving…') : 'Save'}
        </button>
      </header>
      <div className="settings__scroll">
        <div className="settings__column">
          {saveError && (
            <div data-testid="save-error">
              <ErrorNote title="The settings were not saved" problem={saveError} onDismiss={() => setSaveError(null)} />
              {saveError.code === 'model' && (
                <button type="button" className="button settings__anyway" disabled={saving} onClick={() => void save(true)}>
                  Save anyway
                </button>
              )}
            </div>
          )}

          <section className="card">
            <h2 className="card__title">Model</h2>
            {status?.model && (
              <div className={status.model.ok ? 'check check--ok' : 'check check--bad'}>
                <span className="dot" /> {status.model.message}
                {!status.model.ok && status.model.hint && <div className="check__hint">{status.model.hint}</div>}
              </div>
            )}
            <div className="segmented" role="radiogroup" aria-label="Provider">
              <label className={form.provider === 'ollama' ? 'segmented__item segmented__item--on' : 'segmented__item'}>
                <input type="radio" name="provider" checked={form.provider === 'ollama'} onChange={() => set('provider', 'ollama')} />
                Ollama (local)
              </label>
              <label className={form.provider === 'openai' ? 'segmented__item segmented__item--on' : 'segmented__item'}>
                <input type="radio" name="provider" checked={form.provider === 'openai'} onChange={() => set('provider', 'openai')} />
                OpenAI-compatible
              </label>
            </div>

            {form.provider === 'ollama' ? (
              <>
                <label className="field">
                  <span className="field__label">Ollama URL</span>
                  <input value={form.ollamaURL} onChange={(e) => set('ollamaURL', e.target.value)} placeholder="http://127.0.0.1:11434" />
                </label>
                <div className="field">
                  <span className="field__label">
                    Model
                    <button type="button" className="link field__aside" onClick={() => void loadModels()} title="List the models of the address above" aria-label="Refresh the models">
                      <Icon name="refresh" size={12} /> Refresh
                    </button>
                  </span>
                  {modelsError && <ErrorNote title="Could not list the installed models" problem={modelsError} />}
                  {models && models.length === 0 && !modelsError && (
                    <div className="field__note">No models installed. Pull one below, e.g. qwen3:8b.</div>
                  )}
                  {models && models.length > 0 && (
                    <div className="models" role="radiogroup" aria-label="Installed models">
                      {models.map((m) => (
                        <label key={m.name} className={m.name === form.model ? 'model model--on' : 'model'}>
                          {/* An embedding model cannot answer: it is offered for table search, not as the model. */}
                          <input
                            type="radio"
                            name="model"
                            checked={m.name === form.model}
                            disabled={embeds(m) && m.name !== form.model}
                            onChange={() => set('model', m.name)}
                          />
                          <span className="model__name">{m.name}</span>
                          {m.recommended && <span className="tag tag--accent">recommended</span>}
                          {embeds(m) ? (
                            form.embedModel === m.name ? (
                              <span className="tag tag--accent">embedding · used for table search</span>
                            ) : (
                              <button type="button" className="tag tag--button" onClick={() => set('embedModel', m.name)}>
                                embedding · use for table search
                              </button>
                            )
                          ) : m.toolsKnown ? (
                            m.tools ? (
                              <span className="tag tag--ok">tools</span>
                            ) : (
                              <span className="tag tag--bad">no tools</span>
                            )
                          ) : (
                            <span className="tag">tools unknown</span>
                          )}
                          <span className="model__meta">
                            {m.contextLength > 0 && `${Math.round(m.contextLength / 1024)}K context`}
                            {m.size > 0 && ` · ${formatBytes(m.size)}`}
                          </span>
                          {m.warning && !embeds(m) && <span className="model__warning">{m.warning}</span>}
                        </label>
                      ))}
                    </div>
                  )}
                  {selected && embeds(selected) && (
                    <div className="field__note field__note--warn" role="alert">
                      {selected.name} only makes embeddings: it cannot answer questions. Pick a chat model (one marked “tools”).
                    </div>
                  )}
                  {selected && !embeds(selected) && selected.toolsKnown && !selected.tools && (
                    <div className="field__note field__note--warn">
                      {selected.name} cannot call tools, so it cannot explore data. Pick a model marked “tools”.
                    </div>
                  )}
                </div>
                <div className="field">
                  <span className="field__label">Pull a model</span>
                  <div className="field__row">
                    <input
                      value={pullName}
                      onChange={(e) => setPullName(e.target.value)}
                      placeholder="qwen3:8b"
                      aria-label="Model to pull"
                      disabled={pull !== null && !pull.error}
                    />
                    <button type="button" className="button" onClick={() => void startPull()} disabled={pullName.trim() === '' || (pull !== null && !pull.error)}>
                      <Icon name="download" size={14} /> Pull
                    </button>
                  </div>
                  {pull && !pull.error && (
                    <div className="pull">
                      <div className="pull__line">
                        {pull.name}: {pull.status}
                        {pull.total > 0 && ` · ${formatBytes(pull.completed)} of ${formatBytes(pull.total)}`}
                      </div>
                      <div className={pull.total > 0 ? 'progress' : 'progress progress--indeterminate'} role="progressbar" aria-label={`Pulling ${pull.name}`}>
                        <span style={pull.total > 0 ? { width: `${(100 * pull.completed) / pull.total}%` } : undefined} />
                      </div>
                    </div>
                  )}
                  {pull?.error && <ErrorNote title={`Could not pull ${pull.name}`} problem={pull.error} onDismiss={() => setPull(null)} />}
                </div>
              </>
            ) : (
              <>
                <label className="field">
                  <span className="field__label">Base URL</span>
                  <input value={form.openaiBaseURL} onChange={(e) => set('openaiBaseURL', e.target.value)} placeholder="https://api.openai.com/v1" />
                </label>
                <label className="field">
                  <span className="field__label">API key</span>
                  <input
                    type="password"
                    autoComplete="off"
                    value={apiKey}
                    onChange={(e) => setApiKey(e.target.value)}
                    placeholder={keyFits(form) ? '•••••••• saved in the OS keychain — type to replace' : 'sk-…'}
                  />
                  <span className="field__note">Kept in the OS keychain; Loupe never shows it again, and sends it only to the host it was entered for.</span>
                  {keyElsewhere(form) && (
                    <span className="field__note" role="note">
                      The key you saved for {form.apiKeyFor} is not sent to {originOf(form.openaiBaseURL)}: enter the key for {originOf(form.openaiBaseURL)} (it replaces the saved one).
                    </span>
                  )}
                </label>
                <div className="field">
                  <label className="field__label" htmlFor="openai-model">
                    Model
                    <button type="button" className="link field__aside" onClick={() => void loadModels()} title="List the models of the base URL above" aria-label="Refresh the models">
                      <Icon name="refresh" size={12} /> Refresh
                    </button>
                  </label>
                  <input
                    id="openai-model"
                    list="openai-models"
                    value={form.model}
                    onChange={(e) => set('model', e.target.value)}
                    placeholder="gpt-4.1-mini"
                  />
                  <datalist id="openai-models" data-testid="openai-models">
                    {(models ?? []).filter((m) => !embeds(m)).map((m) => (
                      <option key={m.name} value={m.name} />
                    ))}
                  </datalist>
                  {modelsError ? (
                    <ErrorNote title="Could not list the server's models" problem={modelsError} />
                  ) : (
                    models &&
                    models.length > 0 && (
                      <span className="field__note">
                        {models.filter((m) => !embeds(m)).length} models offered: type to pick one, or choose from the list.
                      </span>
                    )
                  )}
                </div>
              </>
            )}
            <div className="settings__test">
              <button type="button" className="button" disabled={testing} onClick={() => void test()}>
                {testing ? <span className="spinner spinner--small" aria-hidden="true" /> : <Icon name="play" size={13} />} Test
              </button>
              <span role="status" data-testid="settings-test">
                {tested && (
                  <span className={tested.ok ? 'check check--ok' : 'check check--bad'}>
                    <span className="dot" /> {tested.ok ? `Works: ${tested.message}` : tested.message}
                    {!tested.ok && tested.hint && <span className="check__hint">{tested.hint}</span>}
                  </span>
                )}
              </span>
            </div>
            <div className="field">
              <label className="field__label" htmlFor="embed-model">
                Embedding model (optional)
              </label>
              <input
                id="embed-model"
                value={form.embedModel ?? ''}
                onChange={(e) => set('embedModel', e.target.value)}
                placeholder="nomic-embed-text"
                aria-describedby="embed-model-note"
              />
              <span className="field__note" id="embed-model-note">
                An optional semantic boost for table search: questions also find tables by meaning, not only by their words.
                Served by the provider above{form.provider === 'ollama' ? ' (pull it first, e.g. nomic-embed-text)' : ''}; leave
                empty to keep it off.
              </span>
            </div>
          </section>

          <PrivacySettings refresh={saved} />

          <section className="card">
            <h2 className="card__title">Limits</h2>
            <div className="field__row">
              <label className="field">
                <span className="field__label">Steps per question</span>
                <input
                  type="number"
                  min={1}
                  max={100}
                  value={form.maxSteps}
                  onChange={(e) => set('maxSteps', Number(e.target.value))}
                />
              </label>
              <label className="field">
                <span className="field__label">Time per question (seconds)</span>
                <input
                  type="number"
                  min={10}
                  max={3600}
                  value={form.timeoutSeconds}
                  onChange={(e) => set('timeoutSeconds', Number(e.target.value))}
                />
              </label>
            </div>
          </section>

          <section className="card">
            <h2 className="card__title">Appearance</h2>
            <div className="segmented" role="radiogroup" aria-label="Theme">
              {(['system', 'light', 'dark'] as const).map((t) => (
                <label key={t} className={form.theme === t ? 'segmented__item segmented__item--on' : 'segmented__item'}>
                  <input type="radio" name="theme" checked={form.theme === t} onChange={() => set('theme', t)} />
                  {t === 'system' ? 'Follow the system' : t === 'light' ? 'Light' : 'Dark'}
                </label>
              ))}
            </div>
          </section>

          {status?.docker && (
            <section className="card">
              <h2 className="card__title">Python sandbox</h2>
              <div className={status.docker.ok ? 'check check--ok' : 'check check--off'}>
                <span className="dot" /> {status.docker.message}
                {!status.docker.ok && status.docker.hint && <div className="check__hint">{status.docker.hint}</div>}
              </div>
              <SandboxBuild check={status.docker} />
            </section>
          )}

          <McpSettings />

          <About />
        </div>
      </div>
    </div>
  );
}

/**
 * Whether a model (by name) only embeds text (nomic-embed-text, mxbai-embed-large):
 * it cannot answer, but serves the embedding model setting. The model list
 * carries no capability for it, so the name tells.
 */
function isEmbedding(name: string): boolean {
  return /embed/i.test(name);
}

/** Whether a listed model only embeds: as the server says, else by its name. */
function embeds(m: ModelInfo): boolean {
  return !!m.embedding || isEmbedding(m.name);
}
