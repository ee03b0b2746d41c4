import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { VerdictView, type VerdictData } from './VerdictView';

describe('VerdictView', () => {
  it('says each fact once: under its check, not again as a reason', () => {
    const small = 'only 12 rows in group B: too few to compare';
    const data: VerdictData = {
      finding: 'West orders are larger than East orders',
      verdict: 'weak',
      reasons: [small, 'the comparison is on averages of skewed amounts'],
      rows: 40,
      checks: [
        { name: 'sample_size', status: 'warn', detail: small },
        { name: 'nulls', status: 'pass', detail: 'no missing amounts' },
      ],
      not_checked: [],
    };
    const { container } = render(<VerdictView data={data} />);
    expect(container.textContent!.split(small)).toHaveLength(2);
    expect(screen.getByText('the comparison is on averages of skewed amounts')).toBeInTheDocument();
    expect(screen.getByText('Weak')).toBeInTheDocument();
  });
});
