import { useState } from 'react';
import { sentOf, type AnswerSent, type SentRequest } from '../../api';
import { problemOf, type Problem } from '../../state/problem';
import { ErrorNote } from '../common/ErrorNote';
import './sent.css';

/**
 * WhatWasSent is an answer's "What was sent" disclosure: the privacy level in
 * force and every request sent to the model server, with its size and, on
 * demand, its body as sent. It loads when first opened.
 */
export function WhatWasSent({ runId }: { runId: string }) {
  const [sent, setSent] = useState<AnswerSent | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const load = (open: boolean) => {
    if (!open || sent !== null) return;
    sentOf(runId).then(setSent, (e: unknown) => setProblem(problemOf(e)));
  };
  return (
    <details className="sent" data-testid="sent" onToggle={(e) => load((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>What was sent</summary>
      {problem && <ErrorNote title="Cannot read what was sent" problem={problem} />}
      {sent === null && problem === null && <div className="sent__loading">Reading…</div>}
      {sent && (
        <div className="sent__body">
          <p className="sent__summary">{sent.summary}</p>
          {sent.requests.length > 0 && (
            <>
              <p className="sent__total">
                {sent.requests.length} {sent.requests.length === 1 ? 'request' : 'requests'}, {formatBytes(sent.bytes)} in all
                {sent.level !== '' && <> · level <strong>{sent.level}</strong></>}
              </p>
              <ol className="sent__list">
                {sent.requests.map((r, i) => (
                  <SentItem key={i} request={r} />
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </details>
  );
}

function SentItem({ request: r }: { request: SentRequest }) {
  const n = messageCount(r.body);
  return (
    <li className="sent__item" data-testid="sent-request">
      <div className="sent__line">
        <span className="sent__size">{formatBytes(r.size)}</span> <code>{r.method}</code> <span className="sent__url">{r.url}</span>
        {n !== null && <span className="sent__messages"> · {n} {n === 1 ? 'message' : 'messages'}</span>}
      </div>
      {r.dropped ? (
        <div className="sent__dropped">Body let go to keep this conversation's record within its bound.</div>
      ) : r.size > 0 ? (
        <details className="sent__request">
          <summary>Body</summary>
          <pre className="sent__pre">{r.pretty}</pre>
        </details>
      ) : null}
    </li>
  );
}

/** The number of chat messages a request body holds, or null when it holds none. */
export function messageCount(body: string): number | null {
  try {
    const v: unknown = JSON.parse(body);
    if (v !== null && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages)) {
      return (v as { messages: unknown[] }).messages.length;
    }
  } catch {
    // not JSON: no count
  }
  return null;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
