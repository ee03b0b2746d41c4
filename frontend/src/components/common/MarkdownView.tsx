import { useMemo, useState, type ComponentProps, type ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import * as api from '../../api';
import { isInlineImage } from './inlineImage';
import './markdown.css';

/**
 * An image Loupe itself drew for an address in the text (a report's
 * charts/REF.svg), as a data:image URL; undefined for any other address.
 */
export type LocalImage = (src: string) => { src: string; alt?: string } | undefined;

export interface MarkdownViewProps {
  text: string;
  /** Resolves Loupe's own chart references; every other image is refused. */
  localImage?: LocalImage | undefined;
}

/**
 * Markdown as the model writes it (GitHub flavour), drawn so that nothing
 * in it makes the window fetch or navigate: raw HTML is dropped, an image
 * is drawn only when localImage turns its address into a data:image URL
 * (anything else becomes a visible placeholder showing the address as
 * text), and a link opens in the system browser only after a click that
 * shows its whole address and a second, explicit confirmation.
 */
export default function MarkdownView({ text, localImage }: MarkdownViewProps) {
  const components = useMemo(
    () => ({
      a: SafeLink,
      img: (props: ComponentProps<'img'>) => <SafeImage {...props} localImage={localImage} />,
      // A code block may scroll sideways: keyboard users reach it with Tab.
      pre: ({ node: _node, ...props }: ComponentProps<'pre'> & { node?: unknown }) => <pre tabIndex={0} {...props} />,
    }),
    [localImage],
  );
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml urlTransform={asWritten} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

// Addresses are kept as the model wrote them: they are shown as text and
// never put into a src or href that the page would load by itself.
function asWritten(url: string): string {
  return url;
}

function SafeImage(props: ComponentProps<'img'> & { localImage?: LocalImage | undefined }) {
  const { src, alt, localImage } = props;
  const address = typeof src === 'string' ? src : '';
  const own = address !== '' ? localImage?.(address) : undefined;
  if (own && isInlineImage(own.src)) {
    return <img className="report__chart" src={own.src} alt={alt || own.alt || ''} />;
  }
  return (
    <span className="md-blocked" data-testid="blocked-image" title="Loupe does not load images from addresses in a model's text">
      <span className="md-blocked__label">Image not loaded{alt ? `: ${alt}` : ''}</span>{' '}
      <code className="md-blocked__address">{address || '(no address)'}</code>
    </span>
  );
}

/** Web and mail addresses may be opened in the system browser; nothing else. */
export function openable(href: string): boolean {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

function SafeLink(props: ComponentProps<'a'> & { node?: unknown }) {
  const { href, children } = props;
  const [asking, setAsking] = useState(false);
  const address = href ?? '';
  return (
    <span className="md-link">
      <button
        type="button"
        className="md-link__text"
        data-testid="md-link"
        aria-expanded={asking}
        title={address}
        onClick={() => setAsking((a) => !a)}
      >
        {children}
      </button>
      {asking && <LinkConfirm address={address} onClose={() => setAsking(false)} />}
    </span>
  );
}

function LinkConfirm({ address, onClose }: { address: string; onClose: () => void }): ReactNode {
  const ok = openable(address);
  const open = () => {
    api.openInBrowser(address);
    onClose();
  };
  return (
    <span className="md-link__confirm" role="group" aria-label="Open this link?" data-testid="link-confirm">
      <span className="md-link__prompt">{ok ? 'Open in your browser?' : 'Loupe opens only web and mail addresses:'}</span>{' '}
      <code className="md-link__address" data-testid="link-address">
        {address || '(no address)'}
      </code>{' '}
      {ok &&
        (api.isDesktop() ? (
          <button type="button" className="chip" onClick={open}>
            Open
          </button>
        ) : (
          // In a browser, a plain new-tab link; the address is the one shown.
          <a className="chip" href={address} target="_blank" rel="noopener noreferrer" onClick={onClose}>
            Open
          </a>
        ))}{' '}
      <button type="button" className="chip" onClick={onClose}>
        Cancel
      </button>
    </span>
  );
}
