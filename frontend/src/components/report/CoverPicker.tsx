import { useEffect, useState } from 'react';
import type { Report } from '../../api';

/** Which questions a report covers, as words: "questions 1–3 of 3". */
export function coverLabel(turns: number[], total: number): string {
  if (turns.length === 0) return 'one answer';
  const all = turns.length === total && turns.every((t, i) => t === i + 1);
  if (all) return total === 1 ? 'the whole conversation' : total === 2 ? 'both questions' : `all ${total} questions`;
  return `question${turns.length > 1 ? 's' : ''} ${turns.join(', ')} of ${total}`;
}

/**
 * CoverPicker shows which of the conversation's questions the report
 * covers and lets the user write it again for the ones ticked.
 */
export function CoverPicker({
  report,
  busy,
  onWrite,
}: {
  report: Report;
  busy: boolean;
  onWrite: (turns: number[]) => void;
}) {
  const questions = report.questions ?? [];
  const covered = report.turns ?? [];
  const [picked, setPicked] = useState<number[]>(covered);
  useEffect(() => setPicked(report.turns ?? []), [report]);
  if (questions.length < 2) return null;
  const toggle = (n: number) =>
    setPicked((p) => (p.includes(n) ? p.filter((x) => x !== n) : [...p, n].sort((a, b) => a - b)));
  const same = picked.length === covered.length && picked.every((n, i) => n === covered[i]);
  return (
    <details className="report-cover" data-testid="report-cover">
      <summary>Covers {coverLabel(covered, questions.length)}</summary>
      <fieldset className="report-cover__list" disabled={busy}>
        <legend>Questions in the report</legend>
        {questions.map((q, i) => (
          <label key={i} className="report-cover__item">
            <input type="checkbox" checked={picked.includes(i + 1)} onChange={() => toggle(i + 1)} />
            <span className="report-cover__n">{i + 1}.</span> {q}
          </label>
        ))}
        <button
          type="button"
          className="button button--small"
          disabled={busy || picked.length === 0 || same}
          onClick={() => onWrite(picked)}
        >
          Write the report of {picked.length === questions.length ? 'every question' : `question${picked.length > 1 ? 's' : ''} ${picked.join(', ')}`}
        </button>
      </fieldset>
    </details>
  );
}
