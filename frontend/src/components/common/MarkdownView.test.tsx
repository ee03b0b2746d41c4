import { fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, resetFake } from '../../test/fakeApi';
import MarkdownView from './MarkdownView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

// What a model (or a prompt injection in the data it read) can write.
const hostile = [
  'Inline ![leak](http://127.0.0.1:9/inline?d=secret) image.',
  '',
  'Reference ![ref leak][1] image.',
  '',
  '<img src="http://127.0.0.1:9/raw-html"> raw <picture><source srcset="http://127.0.0.1:9/srcset"></picture>',
  '',
  'A [link](http://127.0.0.1:9/link?d=secret) and <http://127.0.0.1:9/auto>.',
  '',
  '[1]: http://127.0.0.1:9/reference?d=secret',
].join('\n');

function loads(container: HTMLElement): string[] {
  const out: string[] = [];
  container.querySelectorAll('img, source, picture, iframe, object, embed, video, audio').forEach((el) => {
    out.push(el.outerHTML);
  });
  container.querySelectorAll('[src], [srcset], [href], [style]').forEach((el) => out.push(el.outerHTML));
  return out;
}

describe('MarkdownView', () => {
  it('loads nothing a model wrote: images become placeholders showing their address', () => {
    const { container } = render(<MarkdownView text={hostile} />);
    expect(loads(container)).toEqual([]);
    const blocked = screen.getAllByTestId('blocked-image').map((b) => b.textContent);
    expect(blocked).toEqual([
      'Image not loaded: leak http://127.0.0.1:9/inline?d=secret',
      'Image not loaded: ref leak http://127.0.0.1:9/reference?d=secret',
    ]);
    // Raw HTML is dropped, not drawn.
    expect(container.textContent).not.toContain('raw-html');
  });

  it('draws only the images the caller resolves to its own data:image', () => {
    const svg = 'data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E';
    const local = (src: string) =>
      src === 'charts/c1.svg' ? { src: svg } : src === 'charts/c2.svg' ? { src: 'http://127.0.0.1:9/c2' } : undefined;
    const { container } = render(
      <MarkdownView text={'![Chart](charts/c1.svg)\n\n![Other](charts/c2.svg)\n\n![x](http://127.0.0.1:9/x)'} localImage={local} />,
    );
    const imgs = [...container.querySelectorAll('img')];
    expect(imgs.map((i) => i.getAttribute('src'))).toEqual([svg]);
    expect(imgs[0]).toHaveAttribute('alt', 'Chart');
    // A resolver handing back a remote address is refused too.
    expect(screen.getAllByTestId('blocked-image').map((b) => b.textContent)).toEqual([
      'Image not loaded: Other charts/c2.svg',
      'Image not loaded: x http://127.0.0.1:9/x',
    ]);
  });

  it('opens a link only after showing its whole address and a second, explicit click', () => {
    fake.isDesktop.mockReturnValue(true);
    const { container } = render(<MarkdownView text={hostile} />);
    const links = screen.getAllByTestId('md-link');
    expect(links.map((l) => l.textContent)).toEqual(['link', 'http://127.0.0.1:9/auto']);
    fireEvent.click(links[0]!);
    expect(fake.openInBrowser).not.toHaveBeenCalled();
    const confirm = screen.getByTestId('link-confirm');
    expect(within(confirm).getByTestId('link-address')).toHaveTextContent('http://127.0.0.1:9/link?d=secret');
    fireEvent.click(within(confirm).getByRole('button', { name: 'Open' }));
    expect(fake.openInBrowser).toHaveBeenCalledExactlyOnceWith('http://127.0.0.1:9/link?d=secret');
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    expect(loads(container)).toEqual([]);
  });

  it('in a browser, the confirmed link is a new-tab link to the address shown', () => {
    render(<MarkdownView text="[docs](https://example.org/a?b=1)" />);
    fireEvent.click(screen.getByTestId('md-link'));
    const open = within(screen.getByTestId('link-confirm')).getByRole('link', { name: 'Open' });
    expect(open).toHaveAttribute('href', 'https://example.org/a?b=1');
    expect(open).toHaveAttribute('target', '_blank');
    expect(open).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('offers no way to open addresses other than web and mail', () => {
    render(<MarkdownView text="[run](javascript:alert(1)) [file](file:///etc/passwd)" />);
    for (const link of screen.getAllByTestId('md-link')) {
      fireEvent.click(link);
      const confirm = screen.getByTestId('link-confirm');
      expect(within(confirm).queryByRole('button', { name: 'Open' })).toBeNull();
      expect(within(confirm).queryByRole('link')).toBeNull();
      fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    }
    expect(fake.openInBrowser).not.toHaveBeenCalled();
  });
});
