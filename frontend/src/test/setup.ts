import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// CodeMirror measures text through Range rectangles, which jsdom lacks.
if (typeof Range !== 'undefined' && !Range.prototype.getClientRects) {
  Range.prototype.getClientRects = () => [] as unknown as DOMRectList;
  Range.prototype.getBoundingClientRect = () => new DOMRect();
}

// jsdom does no layout. Scrolling containers of virtualized grids get a
// viewport so that rows render; everything else keeps jsdom's zeros.
Element.prototype.scrollIntoView ??= function scrollIntoView() {};
for (const [prop, size] of [
  ['clientHeight', 400],
  ['clientWidth', 800],
] as const) {
  const base = Object.getOwnPropertyDescriptor(Element.prototype, prop)!;
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      return this.classList.contains('grid__scroll') ? size : (base.get!.call(this) as number);
    },
  });
}

afterEach(() => {
  cleanup();
  delete window.go;
  delete document.documentElement.dataset['theme'];
});
