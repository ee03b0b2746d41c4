/**
 * isInlineImage reports whether uri is a data:image URL (PNG, JPEG, GIF,
 * WebP or SVG): the only image address the page draws from a model's text
 * or a chart spec, since showing it fetches nothing.
 */
export function isInlineImage(uri: unknown): uri is string {
  return typeof uri === 'string' && /^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i.test(uri);
}
