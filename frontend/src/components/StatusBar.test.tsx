import { fireEvent, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Status } from '../api';
import { useBackend } from '../state/events';
import { createStore, useStoreApi } from '../state/store';
import { fake, resetFake } from '../test/fakeApi';
import { renderWithStore } from '../test/render';
import { StatusBar } from './StatusBar';

vi.mock('../api', async () => (await import('../test/fakeApi')).apiModule());

function Bar() {
  useBackend(useStoreApi());
  return <StatusBar />;
}

beforeEach(() => resetFake());

describe('StatusBar', () => {
  it('says Python is off, in a neutral tone, when Docker is missing: Python is optional', async () => {
    const noDocker: Status = {
      model: { ok: false, message: 'Cannot reach Ollama at http://127.0.0.1:11434', hint: 'Start Ollama.' },
      docker: { ok: false, message: 'Docker is not running', hint: 'Python analysis needs Docker; everything else works without it.' },
    };
    fake.status.mockResolvedValue(noDocker);
    renderWithStore(<Bar />, createStore());
    const docker = await screen.findByTestId('status-docker');
    expect(docker).toHaveTextContent(/^Python off: set up Docker to enable$/);
    expect(docker).toHaveClass('status--off');
    expect(docker).not.toHaveTextContent('needs attention');
    // The model is not optional: it still needs attention, in red.
    expect(screen.getByTestId('status-model')).toHaveClass('status--bad');
    expect(screen.getByTestId('status-model')).toHaveTextContent('needs attention');
    fireEvent.click(docker);
    expect(screen.getByRole('dialog', { name: 'Docker status' })).toHaveTextContent('Python analysis is off: everything else works');
  });
});
