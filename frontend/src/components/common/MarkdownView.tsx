import type { ComponentProps } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

type Components = ComponentProps<typeof ReactMarkdown>['components'];

/** Markdown as the model writes it (GitHub flavour); raw HTML is not rendered. */
export default function MarkdownView({ text, components }: { text: string; components?: Components }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={{ a: ExternalLink, ...components }}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

function ExternalLink(props: ComponentProps<'a'>) {
  const { node: _node, ...rest } = props as ComponentProps<'a'> & { node?: unknown };
  return <a {...rest} target="_blank" rel="noreferrer" />;
}
