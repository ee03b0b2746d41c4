// Settings, the status of the model and Docker, and building the Python sandbox.
import * as api from '../../api';
import type { SandboxProgress } from '../../api';
import { problemOf } from '../problem';
import type { Store } from '../store';
import { notify, notifyProblem } from './notices';

export async function refreshStatus(store: Store): Promise<void> {
  try {
    store.set({ status: await api.status() });
  } catch (err) {
    notifyProblem(store, err, 'Could not check the model and Docker');
  }
}

export async function refreshSettings(store: Store): Promise<void> {
  try {
    store.set({ settings: await api.getSettings() });
  } catch (err) {
    notifyProblem(store, err, 'Could not read the settings');
  }
}

/**
 * buildSandbox builds the Python sandbox's image; its progress arrives as
 * sandbox:build events (onSandboxProgress). When it ends the status is
 * checked again.
 */
export async function buildSandbox(store: Store, offline = false): Promise<void> {
  if (store.get().sandboxBuild?.running) return;
  store.set({ sandboxBuild: { running: true, progress: { phase: 'starting', percent: 0, message: 'Starting the build…' } } });
  try {
    const built = await api.buildSandbox(offline);
    store.set((s) => ({
      sandboxBuild: { running: false, built, progress: { ...(s.sandboxBuild?.progress ?? { message: '' }), phase: 'done', percent: 100 } },
    }));
    notify(store, 'info', `Built the Python sandbox (${built.image})`);
  } catch (err) {
    const error = problemOf(err);
    store.set((s) => ({
      sandboxBuild: {
        running: false,
        progress: { ...(s.sandboxBuild?.progress ?? { percent: 0, message: '' }), phase: error.code === 'canceled' ? 'canceled' : 'failed' },
        ...(error.code === 'canceled' ? {} : { error }),
      },
    }));
  }
  void refreshStatus(store);
}

export async function cancelSandboxBuild(store: Store): Promise<void> {
  try {
    await api.cancelSandboxBuild();
  } catch (err) {
    notifyProblem(store, err, 'Could not stop the build');
  }
}

/** onSandboxProgress shows a sandbox:build event (also of a build another window started). */
export function onSandboxProgress(store: Store, p: SandboxProgress): void {
  store.set((s) => {
    const cur = s.sandboxBuild;
    const ended = p.phase === 'done' || p.phase === 'failed' || p.phase === 'canceled';
    if (cur && !cur.running && ended) return {}; // its call's answer says more
    return { sandboxBuild: { ...(cur ?? {}), running: !ended, progress: p } };
  });
}

export function dismissSandboxBuild(store: Store): void {
  if (store.get().sandboxBuild?.running) return;
  store.set({ sandboxBuild: null });
}
