import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Report } from '../../api';
import { CoverPicker, coverLabel } from './CoverPicker';

const report = (turns: number[]): Report => ({
  title: 'T',
  markdown: '# T',
  html: '',
  charts: [],
  turns,
  notices: [],
  questions: ['Where do orders come from?', 'Which product sells most?', 'And by status?'],
});

describe('CoverPicker', () => {
  it('says what the report covers', () => {
    expect(coverLabel([1, 2, 3], 3)).toBe('all 3 questions');
    expect(coverLabel([1, 2], 2)).toBe('both questions');
    expect(coverLabel([1, 3], 3)).toBe('questions 1, 3 of 3');
    expect(coverLabel([2], 3)).toBe('question 2 of 3');
    expect(coverLabel([], 3)).toBe('one answer');
  });

  it('writes the report again for the questions ticked', () => {
    const onWrite = vi.fn();
    render(<CoverPicker report={report([1, 2, 3])} busy={false} onWrite={onWrite} />);
    expect(screen.getByText('Covers all 3 questions')).toBeInTheDocument();
    const write = screen.getByRole('button', { name: /Write the report of every question/ });
    expect(write).toBeDisabled(); // nothing changed
    fireEvent.click(screen.getByRole('checkbox', { name: /Which product sells most/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Write the report of questions 1, 3' }));
    expect(onWrite).toHaveBeenCalledWith([1, 3]);
  });

  it('hides for a conversation of one question', () => {
    const { container } = render(
      <CoverPicker report={{ ...report([1]), questions: ['Only?'] }} busy={false} onWrite={vi.fn()} />,
    );
    expect(container).toBeEmptyDOMElement();
  });
});
