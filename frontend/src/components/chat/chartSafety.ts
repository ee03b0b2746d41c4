// What a chart spec may make the page do: draw, nothing else. A spec comes
// from a model (or from data a model read), so it is untrusted input: it
// must not make the page fetch (data, lookup, images, config), open links,
// or change how it is embedded (usermeta.embedOptions).
import type { Loader } from 'vega';
import type { EmbedOptions } from 'vega-embed';
import { isInlineImage } from '../common/inlineImage';

/** The error every refused load carries; shown when a chart cannot be drawn because of it. */
export const REFUSED = 'Loupe charts load nothing from addresses: their data comes only from the query';

export { isInlineImage };

/**
 * closedLoader is a Vega loader that refuses every address: load, http and
 * file reject, and sanitize (which Vega asks before it shows an image mark
 * or follows an href) allows only data:image URLs, never a link.
 */
export function closedLoader(): Loader {
  const refuse = (uri?: unknown) => Promise.reject(new Error(`${REFUSED} (refused ${String(uri ?? '')})`));
  return {
    load: refuse,
    http: refuse,
    file: refuse,
    sanitize: (uri, options) =>
      isInlineImage(uri) && (options as { context?: string } | undefined)?.context !== 'href'
        ? Promise.resolve({ href: uri })
        : refuse(uri),
  };
}

/**
 * safeSpec returns a copy of spec without usermeta: vega-embed reads
 * usermeta.embedOptions and would let it turn the action menu on, load a
 * config or patch from a URL, or swap the loader.
 */
export function safeSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const { usermeta: _dropped, ...rest } = spec;
  return rest;
}

/**
 * embedOptions are the options every chart is embedded with; the spec has
 * no say in them. ast makes Vega interpret expressions (vega-interpreter)
 * instead of compiling them with new Function, so the page needs no
 * unsafe-eval in its content policy.
 */
export function embedOptions(extra: Pick<EmbedOptions, 'renderer' | 'config'>): EmbedOptions {
  return {
    ...extra,
    mode: 'vega-lite',
    actions: false,
    loader: closedLoader(),
    ast: true,
    defaultStyle: true,
  };
}
