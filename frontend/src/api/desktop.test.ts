import { afterEach, describe, expect, it, vi } from 'vitest';
import * as api from './index';

// Inside the window the calls go to window.go.app.App and events come from
// window.runtime, as Wails injects them.

afterEach(() => {
  api.useTransport(null);
  delete window.runtime;
});

function bind(methods: Record<string, (...a: unknown[]) => Promise<unknown>>) {
  window.go = { app: { App: methods } };
}

describe('desktop transport', () => {
  it('calls the bound method with the arguments', async () => {
    const Page = vi.fn(async () => ({ offset: 10, rows: [[1]] }));
    bind({ Page });
    expect(api.isDesktop()).toBe(true);
    await expect(api.page('r_1', 10, 50)).resolves.toEqual({ offset: 10, rows: [[1]] });
    expect(Page).toHaveBeenCalledWith('r_1', 10, 50);
  });

  it('turns the rejection Wails makes into ApiError', async () => {
    bind({ RunSQL: vi.fn().mockRejectedValue({ code: 'sql', message: 'Binder Error', hint: 'Candidate: region' }) });
    await expect(api.runSQL('SELECT regoin')).rejects.toMatchObject({ name: 'ApiError', code: 'sql', hint: 'Candidate: region' });
  });

  it('says when a method is not bound', async () => {
    bind({});
    await expect(api.listChats()).rejects.toMatchObject({ code: 'internal', message: 'ListChats is not bound in this window' });
  });

  it('subscribes through the Wails runtime and shares one file-drop listener', () => {
    const offEvent = vi.fn();
    let drop: ((x: number, y: number, paths: string[]) => void) | undefined;
    window.runtime = {
      EventsOn: vi.fn((_name: string, cb: (...d: unknown[]) => void) => {
        cb({ model: { ok: true, message: 'm', hint: '' }, docker: { ok: false, message: 'd', hint: 'h' } });
        return offEvent;
      }),
      OnFileDrop: vi.fn((cb: (x: number, y: number, paths: string[]) => void) => {
        drop = cb;
      }),
      OnFileDropOff: vi.fn(),
    };
    bind({});
    const status = vi.fn();
    const off = api.onEvent('status:changed', status);
    expect(status).toHaveBeenCalledWith(expect.objectContaining({ docker: expect.objectContaining({ ok: false }) }));
    off();
    expect(offEvent).toHaveBeenCalled();

    const a = vi.fn();
    const b = vi.fn();
    const offA = api.onFileDrop(a);
    const offB = api.onFileDrop(b);
    expect(window.runtime.OnFileDrop).toHaveBeenCalledTimes(1);
    drop?.(1, 2, ['/home/me/sales.csv']);
    expect(a).toHaveBeenCalledWith(['/home/me/sales.csv']);
    expect(b).toHaveBeenCalledWith(['/home/me/sales.csv']);
    offA();
    expect(window.runtime.OnFileDropOff).not.toHaveBeenCalled();
    offB();
    expect(window.runtime.OnFileDropOff).toHaveBeenCalledTimes(1);
  });
});
