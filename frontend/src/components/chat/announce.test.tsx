import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { recordedRun } from '../../test/fakeApi';
import { RunAnnouncer } from './announce';

const run = recordedRun('run-chart');
const runId = run[0]!.run_id;

describe('RunAnnouncer', () => {
  it('is a polite live region that says Loupe works while text streams, then reads the whole answer once', () => {
    const firstDelta = run.findIndex((e) => e.type === 'text_delta');
    const { rerender } = render(<RunAnnouncer runId={runId} events={run.slice(0, firstDelta + 2)} />);
    const region = screen.getByRole('status');
    expect(region).toHaveAttribute('aria-live', 'polite');
    // Streamed pieces are not read one by one.
    expect(region).toHaveTextContent(/^Loupe is working on the answer…$/);

    rerender(<RunAnnouncer runId={runId} events={run} />);
    expect(region).toHaveTextContent(/^Answer: The Department of Finance \(DOF\) handles the most 311 requests/);
    expect(region).toHaveTextContent(/findings?: /);
    // Refs such as [q1] and markdown marks are not spelt out.
    expect(region.textContent).not.toMatch(/\[q\d|\*\*/);
  });

  it('is empty before any question', () => {
    render(<RunAnnouncer runId={undefined} events={[]} />);
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
  });
});
