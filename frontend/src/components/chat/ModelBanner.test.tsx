import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Check } from '../../api';
import { createStore, initialState } from '../../state/store';
import { renderWithStore } from '../../test/render';
import { ModelBanner } from './ModelBanner';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const ok: Check = { ok: true, message: 'Docker 27', hint: '' };

function banner(model: Check) {
  renderWithStore(<ModelBanner />, createStore({ ...initialState(), status: { model, docker: ok } }));
  return screen.queryByTestId('model-banner');
}

describe('ModelBanner', () => {
  it('gives the failure’s own advice once, without the generic install steps beside it', () => {
    const el = banner({
      ok: false,
      message: 'Cannot reach Ollama at http://127.0.0.1:11434',
      hint: 'Install Ollama from ollama.com/download and open it, then pull qwen3:8b in Settings.',
    });
    expect(el).not.toBeNull();
    expect(el!.textContent!.match(/ollama\.com\/download/g)).toHaveLength(1);
    expect(el).toHaveTextContent('work without one');
  });

  it('says how to get a model when the failure carries no advice', () => {
    const el = banner({ ok: false, message: 'No model chosen', hint: '' });
    expect(el).toHaveTextContent('install Ollama from ollama.com/download');
    expect(el).toHaveTextContent('work without one');
  });

  it('stays out of the way when the model answers', () => {
    expect(banner({ ok: true, message: 'qwen3:8b', hint: '' })).toBeNull();
  });
});
