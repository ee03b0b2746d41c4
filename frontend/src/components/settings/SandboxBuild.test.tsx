import { act, fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SandboxBuilt, Status } from '../../api';
import { useBackend } from '../../state/events';
import { createStore, initialState, useStoreApi } from '../../state/store';
import { emit, fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { StatusBar } from '../StatusBar';
import { SettingsView } from './SettingsView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const missing: Status = {
  model: { ok: true, message: 'qwen3:8b on Ollama', hint: '' },
  docker: {
    ok: false,
    message: 'Docker is running, but the sandbox image loupe-sandbox:1 is not built yet',
    hint: 'Build the sandbox image (about 2 minutes with internet), or run `loupe sandbox build`.',
    action: 'build_sandbox',
  },
};
const ready: Status = { ...missing, docker: { ok: true, message: 'Docker is running and the Python sandbox is ready (loupe-sandbox:1)', hint: '' } };
const built: SandboxBuilt = { image: 'loupe-sandbox:1', recipe: 'dockerfile', versions: 'python=3.12 pandas=2.2.3', sizeBytes: 734 << 20, elapsedMs: 95_000 };

/** The status bar with the backend's events wired, as the app mounts it. */
function Bar() {
  useBackend(useStoreApi());
  return <StatusBar />;
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function openDocker() {
  const item = await screen.findByTestId('status-docker');
  expect(item).toHaveTextContent('Docker · sandbox image missing');
  fireEvent.click(item);
  return screen.getByRole('dialog', { name: 'Docker status' });
}

beforeEach(() => {
  resetFake();
  fake.status.mockResolvedValue(missing);
});

describe('Building the sandbox image', () => {
  it('is offered when the image is missing and shows the build’s progress as it streams, cancellable', async () => {
    renderWithStore(<Bar />, createStore());
    const pop = await openDocker();
    expect(pop).toHaveTextContent('The Python sandbox is not built yet');
    expect(pop).toHaveTextContent('Docker is running, but the sandbox image loupe-sandbox:1 is not built yet');
    const run = deferred<SandboxBuilt>();
    fake.buildSandbox.mockReturnValue(run.promise);
    await act(async () => {
      fireEvent.click(within(pop).getByRole('button', { name: /Build sandbox image/ }));
    });
    expect(fake.buildSandbox).toHaveBeenCalledWith(false);
    const bar = within(pop).getByRole('progressbar', { name: 'Building the sandbox image' });
    expect(bar).toHaveClass('progress--indeterminate');

    act(() => emit('sandbox:build', { phase: 'building', percent: 33.4, message: 'Step 2/3: RUN pip install -r requirements.txt', detail: 'Collecting pandas==2.2.3' }));
    expect(bar).not.toHaveClass('progress--indeterminate');
    expect(bar).toHaveAttribute('aria-valuenow', '33');
    expect((bar.firstChild as HTMLElement).style.width).toBe('33.4%');
    expect(pop).toHaveTextContent('Step 2/3: RUN pip install -r requirements.txt');
    expect(pop).toHaveTextContent('33% · Collecting pandas==2.2.3');
    expect(screen.getByTestId('status-docker')).toHaveTextContent('Docker · building the sandbox image 33%');

    await act(async () => {
      fireEvent.click(within(pop).getByRole('button', { name: 'Cancel' }));
    });
    expect(fake.cancelSandboxBuild).toHaveBeenCalled();
    await act(async () => {
      emit('sandbox:build', { phase: 'canceled', percent: 33.4, message: 'The build was canceled.' });
      run.reject(new FakeApiError('canceled', 'The sandbox image build was canceled.'));
    });
    expect(within(pop).queryByRole('progressbar')).toBeNull();
    expect(within(pop).getByTestId('sandbox-build-canceled')).toBeInTheDocument();
    expect(within(pop).queryByRole('alert')).toBeNull();
    // It can be started again.
    expect(within(pop).getByRole('button', { name: /Build sandbox image/ })).toBeEnabled();
  });

  it('says when it is done, and the Docker check turns ready', async () => {
    const { store } = renderWithStore(<Bar />, createStore());
    const pop = await openDocker();
    fake.buildSandbox.mockImplementation(async () => {
      emit('sandbox:build', { phase: 'done', percent: 100, message: 'Built loupe-sandbox:1 (734 MB)' });
      return built;
    });
    fake.status.mockResolvedValue(ready);
    await act(async () => {
      fireEvent.click(within(pop).getByRole('button', { name: /Build sandbox image/ }));
    });
    expect(store.get().notices.map((n) => n.message)).toContain('Built the Python sandbox (loupe-sandbox:1)');
    expect(screen.getByTestId('status-docker')).toHaveTextContent(/^Docker$/);
    expect(screen.getByTestId('status-docker')).toHaveClass('status--ok');
  });

  it('says why a build failed and what to do', async () => {
    renderWithStore(<Bar />, createStore());
    const pop = await openDocker();
    fake.buildSandbox.mockRejectedValue(
      new FakeApiError('docker', 'The sandbox image build failed at "RUN pip install": no such host', 'This recipe needs internet. Run `loupe sandbox build --offline`.'),
    );
    await act(async () => {
      fireEvent.click(within(pop).getByRole('button', { name: 'Build offline' }));
    });
    expect(fake.buildSandbox).toHaveBeenCalledWith(true);
    const alert = within(pop).getByRole('alert');
    expect(alert).toHaveTextContent('The sandbox image was not built');
    expect(alert).toHaveTextContent('no such host');
    expect(alert).toHaveTextContent('--offline');
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(within(pop).queryByRole('alert')).toBeNull();
  });

  it('is offered in Settings too, sharing the build’s progress', async () => {
    const store = createStore({
      ...initialState(),
      view: { kind: 'settings' },
      status: missing,
      settings: await fake.getSettings(),
      sandboxBuild: { running: true, progress: { phase: 'building', percent: 60, message: 'Step 3/3: USER 10001' } },
    });
    renderWithStore(<SettingsView />, store);
    await screen.findByText(/No models installed/);
    const card = screen.getByRole('heading', { name: 'Python sandbox' }).closest('section')!;
    expect(within(card).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '60');
    expect(card).toHaveTextContent('Step 3/3: USER 10001');
    act(() => store.set({ sandboxBuild: null }));
    expect(within(card).getByRole('button', { name: /Build sandbox image/ })).toBeInTheDocument();
  });
});
