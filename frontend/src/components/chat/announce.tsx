import { useMemo } from 'react';
import type { AgentEvent } from '../../api';
import { buildTrace, stripRefs, type TraceView } from '../../trace/trace';

/**
 * announcement is what a screen reader is told about a run, in one line: that
 * Loupe is working, the question it asks, the answer when it is complete (not
 * each streamed piece, which would be read over and over), or how it ended.
 */
export function announcement(t: TraceView): string {
  const o = t.outcome;
  if (t.running) return t.question ? `Loupe asks: ${t.question.text}` : 'Loupe is working on the answer…';
  if (!o) return '';
  switch (o.status) {
    case 'needs_input':
      return t.question ? `Loupe asks: ${t.question.text}` : 'Loupe needs an answer to go on.';
    case 'canceled':
      return 'Stopped.';
    case 'failed':
    case 'limit':
      return `The run ended early: ${o.reason || 'no reason given'}.`;
  }
  const text = o.summary || o.answer || '';
  const findings = (o.findings ?? []).map((f) => stripRefs(f.text, f.evidence ?? []));
  const parts = [`Answer: ${plain(text)}`];
  if (findings.length > 0) parts.push(`${findings.length} ${findings.length === 1 ? 'finding' : 'findings'}: ${findings.map(plain).join('; ')}`);
  return parts.join(' ');
}

/** plain drops markdown marks a screen reader would spell out. */
function plain(md: string): string {
  return md
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/[*_`#>|]+/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * RunAnnouncer is a polite live region (always in the page, so what changes
 * in it is read) saying what the newest run of the conversation is doing.
 */
export function RunAnnouncer({ runId, events }: { runId: string | undefined; events: readonly AgentEvent[] }) {
  const text = useMemo(() => (runId ? announcement(buildTrace(runId, events)) : ''), [runId, events]);
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {text}
    </div>
  );
}
