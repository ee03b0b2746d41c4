import { lazy, Suspense, type ComponentProps } from 'react';
import type MarkdownView from './MarkdownView';
import './markdown.css';

const load = () => import('./MarkdownView');
const View = lazy(load);

// The renderer is not needed for the first screen: fetch it once the page is idle.
if (typeof window !== 'undefined') {
  const idle = window.requestIdleCallback ?? ((f: () => void) => window.setTimeout(f, 200));
  idle(() => void load());
}

/**
 * Markdown as the model writes it (GitHub flavour), drawn by MarkdownView:
 * no raw HTML, no image but Loupe's own, links opened only after the user
 * saw and confirmed the address. Until the renderer has loaded, the text
 * shows as it is.
 */
export function Markdown(props: ComponentProps<typeof MarkdownView>) {
  return (
    <Suspense fallback={<div className="markdown markdown--plain">{props.text}</div>}>
      <View {...props} />
    </Suspense>
  );
}
