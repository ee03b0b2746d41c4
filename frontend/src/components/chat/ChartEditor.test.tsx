import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ToolChart } from '../../api';
import { ChartEditor } from './ChartEditor';
import { buildSpec, fieldsOf, typeOf } from './chartEdit';

const values = [
  { region: 'West', month: '2024-01-01T00:00:00', revenue: 120.5 },
  { region: 'East', month: '2024-02-01T00:00:00', revenue: 80 },
];
const chart: ToolChart = {
  title: 'Revenue by region',
  mark: 'bar',
  rows: 2,
  spec: {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Revenue by region',
    data: { values },
    mark: 'bar',
    encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'revenue', type: 'quantitative' } },
  },
};

describe('chartEdit', () => {
  it('reads the fields of a drawn spec and writes a spec over its data', () => {
    const f = fieldsOf(chart.spec, ['month', 'region', 'revenue']);
    expect(f).toEqual({ mark: 'bar', x: 'region', y: 'revenue', color: '' });
    expect(typeOf(values, 'month')).toBe('temporal');
    expect(typeOf(values, 'revenue')).toBe('quantitative');
    const line = buildSpec(chart.spec, { mark: 'line', x: 'month', y: 'revenue', color: 'region' });
    expect(line).toEqual({
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      title: 'Revenue by region',
      mark: { type: 'line', tooltip: true },
      encoding: {
        x: { field: 'month', type: 'temporal' },
        y: { field: 'revenue', type: 'quantitative' },
        color: { field: 'region', type: 'nominal' },
      },
    });
    expect(line).not.toHaveProperty('data'); // the chart keeps its own rows
    const pie = buildSpec(chart.spec, { mark: 'arc', x: 'region', y: 'revenue', color: '' });
    expect(pie['encoding']).toEqual({ theta: { field: 'revenue', type: 'quantitative' }, color: { field: 'region', type: 'nominal' } });
  });
});

describe('ChartEditor', () => {
  it('changes the type and fields from the chart’s columns and saves the spec', async () => {
    const save = vi.fn(async () => undefined);
    const onClose = vi.fn();
    render(<ChartEditor chart={chart} save={save} onClose={onClose} />);
    const ed = screen.getByRole('region', { name: 'Edit the chart' });
    expect(within(ed).getByRole('combobox', { name: 'Type' })).toHaveFocus();
    expect(within(ed).getAllByRole('option', { name: 'month' })).toHaveLength(3); // x, y, color
    fireEvent.change(within(ed).getByRole('combobox', { name: 'Type' }), { target: { value: 'line' } });
    fireEvent.change(within(ed).getByRole('combobox', { name: 'X' }), { target: { value: 'month' } });
    fireEvent.change(within(ed).getByRole('combobox', { name: 'Color (series)' }), { target: { value: 'region' } });
    await act(async () => fireEvent.click(within(ed).getByRole('button', { name: 'Apply' })));
    const sent = JSON.parse((save.mock.calls[0] as unknown as [string])[0]) as Record<string, unknown>;
    expect(sent['mark']).toEqual({ type: 'line', tooltip: true });
    expect(sent['encoding']).toMatchObject({ x: { field: 'month', type: 'temporal' }, color: { field: 'region' } });
    expect(onClose).toHaveBeenCalled();
  });

  it('shows why Go refused a spec and stays open; bad JSON never leaves the page', async () => {
    const save = vi.fn(async () => {
      throw Object.assign(new Error('The spec does not fit the chart\'s data: field "customer" is not a column'), { code: 'invalid', hint: '' });
    });
    const onClose = vi.fn();
    render(<ChartEditor chart={chart} save={save} onClose={onClose} />);
    const ed = screen.getByRole('region', { name: 'Edit the chart' });
    fireEvent.click(within(ed).getByText('Advanced: the Vega-Lite spec'));
    const box = within(ed).getByRole('textbox', { name: 'Vega-Lite spec (JSON)' });
    expect((box as HTMLTextAreaElement).value).not.toContain('"values"');
    fireEvent.change(box, { target: { value: '{"mark": "bar",' } });
    await act(async () => fireEvent.click(within(ed).getByRole('button', { name: 'Apply the spec' })));
    expect(within(ed).getByRole('alert')).toHaveTextContent('The spec is not valid JSON');
    expect(save).not.toHaveBeenCalled();

    fireEvent.change(box, { target: { value: '{"mark": "bar", "encoding": {"x": {"field": "customer"}}}' } });
    await act(async () => fireEvent.click(within(ed).getByRole('button', { name: 'Apply the spec' })));
    expect(save).toHaveBeenCalledWith('{"mark":"bar","encoding":{"x":{"field":"customer"}}}');
    expect(within(ed).getByRole('alert')).toHaveTextContent('field "customer" is not a column');
    expect(onClose).not.toHaveBeenCalled();

    fireEvent.keyDown(box, { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });
});
