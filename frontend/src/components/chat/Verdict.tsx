import { useState } from 'react';
import type { AnswerFeedback } from '../../api';

/**
 * Verdict is the thumbs up and down on an answer. Up verifies its
 * question and SQL (later questions are offered them; loupe eval
 * --verified replays them); down asks why, and keeps it.
 */
export function Verdict({
  feedback,
  onVerdict,
}: {
  feedback?: AnswerFeedback | undefined;
  onVerdict: (verdict: 'up' | 'down', note: string) => void;
}) {
  const [why, setWhy] = useState<string | null>(null);
  const given = feedback?.verdict;
  return (
    <span className="verdict" data-testid="verdict">
      <button
        type="button"
        className={`verdict__button${given === 'up' ? ' verdict__button--on' : ''}`}
        aria-pressed={given === 'up'}
        aria-label="Right answer: verify it"
        title="Right answer: verify its question and SQL for later questions"
        onClick={() => onVerdict('up', '')}
      >
        👍
      </button>
      <button
        type="button"
        className={`verdict__button${given === 'down' ? ' verdict__button--on' : ''}`}
        aria-pressed={given === 'down'}
        aria-label="Wrong answer"
        title="Wrong answer: say why"
        onClick={() => setWhy(feedback?.verdict === 'down' ? feedback.note : '')}
      >
        👎
      </button>
      {given === 'up' && <span className="verdict__said">Verified</span>}
      {given === 'down' && why === null && <span className="verdict__said">Marked wrong{feedback?.note ? `: ${feedback.note}` : ''}</span>}
      {why !== null && (
        <form
          className="verdict__why"
          onSubmit={(e) => {
            e.preventDefault();
            onVerdict('down', why.trim());
            setWhy(null);
          }}
        >
          <input
            aria-label="What is wrong with the answer"
            placeholder="What is wrong? (optional)"
            value={why}
            autoFocus
            onChange={(e) => setWhy(e.target.value)}
          />
          <button type="submit" className="button button--small">
            Mark wrong
          </button>
          <button type="button" className="button button--ghost button--small" onClick={() => setWhy(null)}>
            Cancel
          </button>
        </form>
      )}
    </span>
  );
}
