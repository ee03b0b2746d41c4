import { useEffect, useMemo, useState } from 'react';
import type { AgentEvent, AnswerFeedback } from '../../api';
import { answerStep, buildTrace, evidenceId, formatDuration, stripRefs, type CallView, type TraceView } from '../../trace/trace';
import { Icon } from '../common/Icon';
import { Markdown } from '../common/Markdown';
import { ErrorNote } from '../common/ErrorNote';
import { CallCard, callRef, opensByDefault } from './CallCard';
import { Verdict } from './Verdict';
import { WhatWasSent } from './WhatWasSent';
import { FinalResult, finalResult } from './FinalResult';
import './chat.css';

export interface TurnProps {
  question: string;
  runId: string;
  events: readonly AgentEvent[];
  /** The newest turn of the chat: only it offers answers and follow-ups. */
  latest: boolean;
  /** Another run of this chat is going (answers would be refused). */
  busy: boolean;
  onAnswer: (text: string) => void;
  onReport: () => void;
  onFollowUp: () => void;
  /** Answers the question again; offered on the newest turn when its run did not finish. */
  onRetry?: () => void;
  /** The user's verdict on the answer, when given. */
  feedback?: AnswerFeedback | undefined;
  /** Gives the verdict on a finished answer; without it no thumbs are shown. */
  onVerdict?: (verdict: 'up' | 'down', note: string) => void;
}

/** Whether a run that ended so can be answered again (the store keeps it interrupted or failed). */
export function retryable(status: string | undefined): boolean {
  return status === 'canceled' || status === 'failed' || status === 'limit';
}

/** One question and the agent's work and answer for it. */
export function Turn({ question, runId, events, latest, busy, onAnswer, onReport, onFollowUp, onRetry, feedback, onVerdict }: TurnProps) {
  const trace = useMemo(() => buildTrace(runId, events), [runId, events]);
  const answer = answerStep(trace);
  const steps = answer ? trace.steps.slice(0, -1) : trace.steps;
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const [flash, setFlash] = useState<string | null>(null);
  const [workOpen, setWorkOpen] = useState(true);
  const outcome = trace.outcome;
  const status = outcome?.status;

  const reveal = (ref: string) => {
    const call = findCall(trace, ref);
    if (call === undefined) return;
    setWorkOpen(true);
    setOpened((o) => ({ ...o, [call.key]: true }));
    setFlash(call.key);
    requestAnimationFrame(() => {
      document.getElementById(evidenceId(runId, ref))?.scrollIntoView({ behavior: 'smooth', block: 'center' });
    });
  };
  useEffect(() => {
    if (flash === null) return;
    const t = setTimeout(() => setFlash(null), 1600);
    return () => clearTimeout(t);
  }, [flash]);

  const callCount = steps.reduce((n, s) => n + s.calls.length, 0);
  // The result the answer rests on is shown under its summary once the run
  // is done; its chart then does not open in the steps as well.
  const final = useMemo(() => (status === 'done' ? finalResult(trace) : {}), [status, trace]);
  const inlineChart = final.chart?.call.key;
  const q = trace.question;
  return (
    <article className="turn" data-testid="turn" data-run={runId} data-status={status ?? 'running'}>
      <div className="turn__question">
        <div className="bubble">{question}</div>
      </div>

      {(steps.length > 0 || trace.running) && (
        <div className="work">
          <button type="button" className="work__head" aria-expanded={workOpen} onClick={() => setWorkOpen((o) => !o)}>
            <Icon name="chevron" size={12} className="work__chevron" />
            <span>{workTitle(trace, callCount)}</span>
            {trace.running && <span className="spinner spinner--small" aria-hidden="true" />}
          </button>
          {workOpen && (
            <ol className="work__steps">
              {steps.map((s) => (
                <li key={s.step} className="step" data-testid="step">
                  {s.thinking.trim() !== '' && <Thinking text={s.thinking} />}
                  {s.text.trim() !== '' && (
                    <div className="step__text">
                      <Markdown text={s.text} />
                    </div>
                  )}
                  {s.calls.map((c) => (
                    <CallCard
                      key={c.key}
                      call={c}
                      runId={runId}
                      open={opened[c.key] ?? (opensByDefault(c) && c.key !== inlineChart)}
                      flash={flash === c.key}
                      onToggle={() => setOpened((o) => ({ ...o, [c.key]: !(o[c.key] ?? (opensByDefault(c) && c.key !== inlineChart)) }))}
                    />
                  ))}
                </li>
              ))}
              {trace.running && steps.length === 0 && answer === undefined && (
                <li className="step step--waiting">Thinking…</li>
              )}
            </ol>
          )}
        </div>
      )}

      {answer && answer.thinking.trim() !== '' && <Thinking text={answer.thinking} />}
      {outcome && (outcome.summary || (outcome.findings?.length ?? 0) > 0) ? (
        <div className="answer" data-testid="answer">
          {outcome.summary && <Markdown text={outcome.summary} />}
          <FinalResult final={final} runId={runId} />
          {(outcome.findings?.length ?? 0) > 0 && <Findings outcome={outcome} onReveal={reveal} trace={trace} />}
          <Unverified outcome={outcome} />
        </div>
      ) : answer || outcome?.answer ? (
        <div className={trace.running ? 'answer answer--streaming' : 'answer'} data-testid="answer">
          <Markdown text={outcome?.answer ?? answer?.text ?? ''} />
          {outcome && <FinalResult final={final} runId={runId} />}
          {outcome && <Unverified outcome={outcome} />}
        </div>
      ) : null}

      {q && (status === 'needs_input' || (trace.running && q)) && (
        <div className="question-card" data-testid="question">
          <div className="question-card__label">
            <Icon name="chat" size={14} /> Loupe asks
          </div>
          <div className="question-card__text">{q.text}</div>
          {(q.options?.length ?? 0) > 0 && (
            <div className="question-card__options">
              {q.options!.map((o) => (
                <button
                  type="button"
                  key={o}
                  className="option"
                  disabled={!latest || busy || trace.running}
                  onClick={() => onAnswer(o)}
                >
                  {o}
                </button>
              ))}
            </div>
          )}
          {latest && <div className="question-card__hint">Pick an answer or type your own below.</div>}
        </div>
      )}

      {status === 'canceled' && <div className="turn__note">Stopped{outcome?.reason ? ` — ${outcome.reason}` : '.'}</div>}
      {(status === 'failed' || status === 'limit') && (
        <ErrorNote
          title={status === 'limit' ? 'The agent hit a limit' : 'The run failed'}
          problem={{ code: status, message: outcome?.reason || 'The run ended early.', hint: '' }}
        />
      )}

      {outcome && status !== 'needs_input' && (
        <div className="turn__actions">
          {latest && onRetry && retryable(status) && (
            <button
              type="button"
              className="button button--primary"
              disabled={busy}
              title={busy ? 'Wait for the answer in progress' : 'Ask the same question again'}
              onClick={onRetry}
            >
              <Icon name="refresh" size={14} /> Retry
            </button>
          )}
          {(outcome.evidence?.length ?? 0) > 0 || outcome.summary ? (
            <button type="button" className="button" onClick={onReport}>
              <Icon name="report" size={14} /> Generate report
            </button>
          ) : null}
          {latest && (
            <button type="button" className="button button--ghost" onClick={onFollowUp}>
              <Icon name="chat" size={14} /> Ask follow-up
            </button>
          )}
          {status === 'done' && onVerdict && <Verdict feedback={feedback} onVerdict={onVerdict} />}
          <span className="turn__meta">{metaLine(trace)}</span>
        </div>
      )}
      {outcome && <WhatWasSent runId={runId} />}
    </article>
  );
}

function Thinking({ text }: { text: string }) {
  return (
    <details className="thinking">
      <summary>Thinking</summary>
      <div className="thinking__text">{text}</div>
    </details>
  );
}

/** Says which numbers of the answer no result of the run backs (they are marked "[unverified]" in the text). */
function Unverified({ outcome }: { outcome: NonNullable<TraceView['outcome']> }) {
  const bad = (outcome.numbers ?? []).filter((n) => !n.source).map((n) => n.number.text);
  if (bad.length === 0) return null;
  const list = [...new Set(bad)].join(', ');
  return (
    <div className="answer__unverified" role="note" data-testid="unverified">
      ⚠ Not found in any result of this run: {list}. Check {bad.length === 1 ? 'it' : 'them'} before relying on{' '}
      {bad.length === 1 ? 'it' : 'them'}.
    </div>
  );
}

function Findings({
  outcome,
  trace,
  onReveal,
}: {
  outcome: NonNullable<TraceView['outcome']>;
  trace: TraceView;
  onReveal: (ref: string) => void;
}) {
  return (
    <div className="findings" data-testid="findings">
      <div className="findings__title">Findings</div>
      <ul>
        {outcome.findings!.map((f, i) => (
          <li key={i} className="finding">
            <span className="finding__text">
              <Markdown text={stripRefs(f.text, f.evidence ?? [])} />
            </span>
            <span className="finding__refs">
              {(f.evidence ?? []).map((ref) => (
                <button
                  type="button"
                  key={ref}
                  className="ref"
                  disabled={findCall(trace, ref) === undefined}
                  onClick={() => onReveal(ref)}
                  title={`Show ${ref.startsWith('c') ? 'the chart' : 'the query'} ${ref}`}
                >
                  {ref}
                </button>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The call that produced evidence ref: by the ref on its result, else by the outcome's evidence list. */
function findCall(t: TraceView, ref: string): CallView | undefined {
  const calls = t.steps.flatMap((s) => s.calls);
  const byRef = calls.find((c) => callRef(c) === ref);
  if (byRef) return byRef;
  const callId = t.outcome?.evidence?.find((e) => e.ref === ref)?.call_id;
  return callId ? calls.find((c) => c.id === callId) : undefined;
}

function workTitle(t: TraceView, calls: number): string {
  if (t.running) return calls === 0 ? 'Working' : `Working · ${calls} ${calls === 1 ? 'step' : 'steps'}`;
  const ms = t.outcome?.meta?.duration_ms;
  const time = ms ? ` for ${formatDuration(ms)}` : '';
  return `Worked${time} · ${calls} ${calls === 1 ? 'step' : 'steps'}`;
}

function metaLine(t: TraceView): string {
  const m = t.outcome?.meta;
  if (!m) return '';
  const parts: string[] = [];
  if (m.duration_ms) parts.push(formatDuration(m.duration_ms));
  if (m.steps) parts.push(`${m.steps} model ${m.steps === 1 ? 'call' : 'calls'}`);
  const tokens = (m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0);
  if (tokens > 0) parts.push(`${tokens.toLocaleString('en-US')} tokens`);
  if (m.model) parts.push(m.model);
  return parts.join(' · ');
}
