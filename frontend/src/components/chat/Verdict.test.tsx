import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Verdict } from './Verdict';

describe('Verdict', () => {
  it('verifies with a thumbs up', () => {
    const onVerdict = vi.fn();
    render(<Verdict onVerdict={onVerdict} />);
    fireEvent.click(screen.getByRole('button', { name: /Right answer/ }));
    expect(onVerdict).toHaveBeenCalledWith('up', '');
  });

  it('asks why on a thumbs down and keeps the note', () => {
    const onVerdict = vi.fn();
    render(<Verdict onVerdict={onVerdict} />);
    fireEvent.click(screen.getByRole('button', { name: 'Wrong answer' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'What is wrong with the answer' }), { target: { value: ' counts, not sums ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Mark wrong' }));
    expect(onVerdict).toHaveBeenCalledWith('down', 'counts, not sums');
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('shows the verdict given', () => {
    const { rerender } = render(<Verdict feedback={{ verdict: 'up', note: '', sql: [] }} onVerdict={vi.fn()} />);
    expect(screen.getByRole('button', { name: /Right answer/ })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText('Verified')).toBeInTheDocument();
    rerender(<Verdict feedback={{ verdict: 'down', note: 'wrong year', sql: [] }} onVerdict={vi.fn()} />);
    expect(screen.getByText('Marked wrong: wrong year')).toBeInTheDocument();
  });
});
