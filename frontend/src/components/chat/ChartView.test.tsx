import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../state/store';
import { fake, FakeApiError, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { ChartView } from './ChartView';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

const embed = vi.hoisted(() => vi.fn());
vi.mock('vega-embed', () => ({ default: embed }));

const png = 'data:image/png;base64,iVBORw0KGgo=';
const svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>';
const spec = { mark: 'bar', data: { values: [{ region: 'West', orders: 4 }] } };
let toImageURL: ReturnType<typeof vi.fn>;
let toSVG: ReturnType<typeof vi.fn>;
let clicked: { href: string; download: string }[];

beforeEach(() => {
  resetFake();
  toImageURL = vi.fn(async (format: string) => (format === 'png' ? png : `data:image/svg+xml,${encodeURIComponent(svg)}`));
  toSVG = vi.fn(async () => svg);
  embed.mockReset();
  embed.mockImplementation(async (el: HTMLElement) => {
    el.innerHTML = '<svg class="marks"></svg>';
    return { view: { toImageURL, toSVG }, finalize: vi.fn() };
  });
  clicked = [];
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    clicked.push({ href: this.href, download: this.download });
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function drawn() {
  const store = createStore();
  renderWithStore(<ChartView spec={spec} title="Orders by region" />, store);
  await waitFor(() => expect(screen.getByRole('button', { name: 'PNG' })).toBeEnabled());
  return store;
}

describe('ChartView render time', () => {
  it('sends how long the draw took, with the rows and the renderer, to the app log', async () => {
    await drawn();
    expect(fake.chartRendered).toHaveBeenCalledTimes(1);
    const [rows, renderer, ms] = fake.chartRendered.mock.calls[0]!;
    expect([rows, renderer]).toEqual([1, 'svg']);
    expect(ms).toBeGreaterThanOrEqual(0);
  });

  it('still shows the chart when the log cannot be reached', async () => {
    fake.chartRendered.mockRejectedValueOnce(new FakeApiError('internal', 'gone'));
    await drawn(); // the export buttons are enabled: the chart is drawn
    expect(screen.queryByText(/could not be drawn/)).toBeNull();
  });
});

describe('ChartView export', () => {
  it('downloads the image in a browser, without asking Go', async () => {
    await drawn();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'PNG' }));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'SVG' }));
    });
    expect(clicked).toEqual([
      { href: png, download: 'orders-by-region.png' },
      { href: `data:image/svg+xml,${encodeURIComponent(svg)}`, download: 'orders-by-region.svg' },
    ]);
    expect(toImageURL).toHaveBeenCalledWith('png', 2);
    expect(fake.saveChart).not.toHaveBeenCalled();
  });

  it('in the window, hands the image to Go, which asks where to save it', async () => {
    fake.isDesktop.mockReturnValue(true);
    fake.saveChart.mockResolvedValueOnce('/home/ana/orders-by-region.png').mockResolvedValueOnce('/home/ana/orders-by-region.svg');
    const store = await drawn();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'PNG' }));
    });
    expect(fake.saveChart).toHaveBeenLastCalledWith('Orders by region', 'png', png);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'SVG' }));
    });
    expect(fake.saveChart).toHaveBeenLastCalledWith('Orders by region', 'svg', svg);
    expect(clicked).toEqual([]);
    expect(store.get().notices.map((n) => n.message)).toEqual([
      'Saved the chart to /home/ana/orders-by-region.png',
      'Saved the chart to /home/ana/orders-by-region.svg',
    ]);
  });

  it('in the window, says nothing when the dialog is canceled, and why a save failed', async () => {
    fake.isDesktop.mockReturnValue(true);
    fake.saveChart.mockResolvedValueOnce(null);
    const store = await drawn();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'PNG' }));
    });
    expect(store.get().notices).toEqual([]);
    fake.saveChart.mockRejectedValueOnce(new FakeApiError('file', '/mnt/ro/chart.png: cannot write the chart', 'You may not write there: choose a folder you own.'));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'PNG' }));
    });
    expect(store.get().notices).toMatchObject([
      { kind: 'error', message: 'Could not save the chart: /mnt/ro/chart.png: cannot write the chart', hint: 'You may not write there: choose a folder you own.' },
    ]);
    expect(screen.getByRole('button', { name: 'PNG' })).toBeEnabled();
  });
});

describe('ChartView accessibility', () => {
  it('is named by its title, has tooltips, and shows its data as a table on demand', async () => {
    await drawn();
    // Screen readers hear the title, not "Vega visualization"; every mark has a tooltip.
    const [, drawnSpec, options] = embed.mock.calls[0]! as [HTMLElement, Record<string, unknown>, { config: { mark: { tooltip: unknown } } }];
    expect(drawnSpec['description']).toBe('Orders by region');
    expect(options.config.mark.tooltip).toBe(true);
    expect(screen.getByRole('figure', { name: 'Orders by region' })).toBeInTheDocument();

    const toggle = screen.getByRole('button', { name: 'Data table' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('table')).toBeNull();
    fireEvent.click(toggle);
    const table = screen.getByRole('table', { name: 'Orders by region' });
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['region', 'orders']);
    expect(table).toHaveTextContent('West4');
    expect(screen.getByRole('button', { name: 'Hide data' })).toHaveAttribute('aria-expanded', 'true');
  });
});
