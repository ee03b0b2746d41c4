import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, LoadReport, Report } from './api';
import { App } from './App';
import { dataset, emit, fake, recordedRun, resetFake } from './test/fakeApi';

vi.mock('./api', async () => (await import('./test/fakeApi')).apiModule());
vi.mock('vega-embed', () => ({
  default: vi.fn(async (el: HTMLElement) => {
    el.innerHTML = '<svg></svg>';
    return { view: { toImageURL: vi.fn() }, finalize: vi.fn() };
  }),
}));

beforeEach(() => {
  resetFake();
});

/** sendEvents emits a recorded run in batches, as the backend would. */
function sendEvents(runId: string, chatId: string, events: AgentEvent[], batch = 4) {
  for (let i = 0; i < events.length; i += batch) {
    act(() => emit('run:events', { runId, chatId, events: events.slice(i, i + batch).map((e) => ({ ...e, run_id: runId })) }));
  }
}

describe('first run', () => {
  it('welcomes a user with no data, lists the formats, and loads the sample', async () => {
    fake.sampleQuestions.mockResolvedValue(['Which category sells most?']);
    render(<App />);
    expect(await screen.findByRole('button', { name: 'Which category sells most?' })).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Loupe' })).toBeInTheDocument();
    const formats = within(screen.getByRole('list', { name: 'Supported formats' }));
    for (const name of ['CSV / TSV', 'Parquet', 'JSON', 'Excel', 'DuckDB', 'SQLite']) {
      expect(formats.getByText(name)).toBeInTheDocument();
    }

    fake.sampleDataset.mockImplementation(async () => {
      fake.listDatasets.mockResolvedValue([dataset('sales')]);
      return [{ file: 'sample', datasets: [dataset('sales')] }];
    });
    fireEvent.click(screen.getByRole('button', { name: /Try the sample data/ }));
    await waitFor(() => expect(fake.sampleDataset).toHaveBeenCalled());
    // With data, the chat view suggests questions made from the columns.
    expect(await screen.findByRole('button', { name: 'Which region has the highest total amount?' })).toBeInTheDocument();
    expect(screen.getByTestId('dataset')).toHaveTextContent('sales');
    expect(screen.getByTestId('dataset')).toHaveTextContent('1,000 rows');
  });

  it('asking a sample question loads the sample and puts the question in the box', async () => {
    fake.sampleQuestions.mockResolvedValue(['Which category sells most?']);
    fake.sampleDataset.mockImplementation(async () => {
      fake.listDatasets.mockResolvedValue([dataset('orders')]);
      return [{ file: 'orders.csv', datasets: [dataset('orders')] }];
    });
    render(<App />);
    fireEvent.click(await screen.findByRole('button', { name: 'Which category sells most?' }));
    const box = await screen.findByRole('textbox', { name: 'Question' });
    await waitFor(() => expect(box).toHaveValue('Which category sells most?'));
    expect(fake.ask).not.toHaveBeenCalled();
  });

  it('says what to do when no model answers, and the data still opens', async () => {
    fake.status.mockResolvedValue({
      model: {
        ok: false,
        message: 'Cannot reach Ollama at http://127.0.0.1:11434',
        // app/status.InstallOllama, as the status says it on a first start without Ollama.
        hint: 'Install Ollama from ollama.com/download and open it (if it is installed, open the Ollama app or run `ollama serve`), then pull qwen3:8b in Settings (about 5 GB).',
      },
      docker: { ok: false, message: 'Docker is not available', hint: 'Install Docker to run Python.' },
    });
    render(<App />);
    const banner = await screen.findByTestId('model-banner');
    expect(banner).toHaveTextContent('Cannot reach Ollama');
    // A first start without Ollama says how to get it, once, and what works without it.
    expect(banner.textContent!.match(/ollama\.com\/download/g)).toHaveLength(1);
    expect(banner).toHaveTextContent('pull qwen3:8b in Settings');
    expect(banner).toHaveTextContent('work without one');
    expect(screen.getByTestId('status-model')).toHaveTextContent('needs attention');
    fireEvent.click(screen.getByTestId('status-docker'));
    expect(screen.getByRole('dialog', { name: 'Docker status' })).toHaveTextContent('Install Docker to run Python.');
    expect(screen.getByRole('button', { name: /Open files… Ctrl\+O/ })).toBeEnabled();
  });
});

describe('opening files', () => {
  it('shows progress while loading and the error with its hint where the user looks', async () => {
    let finish!: (v: LoadReport[]) => void;
    fake.openFiles.mockImplementation(() => new Promise((r) => (finish = r)));
    render(<App />);
    // A browser has no native dialog: Ctrl+O asks for paths.
    fireEvent.keyDown(window, { key: 'o', ctrlKey: true });
    const paths = await screen.findByRole('textbox', { name: 'File paths' });
    fireEvent.change(paths, { target: { value: '/data/orders.csv\n/data/broken.csv' } });
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(fake.openFiles).toHaveBeenCalledWith(['/data/orders.csv', '/data/broken.csv']));

    act(() => emit('load:progress', { file: '/data/orders.csv', phase: 'reading', percent: 40, rows: 4000, bytes: 400, totalBytes: 1000 }));
    const bar = screen.getByRole('progressbar', { name: 'Loading orders.csv' });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByTestId('loads')).toHaveTextContent('Reading · 4,000 rows');

    fake.listDatasets.mockResolvedValue([dataset('orders')]);
    await act(async () => {
      finish([
        { file: '/data/orders.csv', datasets: [dataset('orders')] },
        { file: '/data/broken.csv', error: { code: 'file', message: 'broken.csv is not valid CSV', hint: 'Check the delimiter.' } },
      ]);
    });
    expect(screen.queryByRole('progressbar')).toBeNull();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Could not open broken.csv');
    expect(alert).toHaveTextContent('Check the delimiter.');
    expect(await screen.findByText('orders')).toBeInTheDocument();
  });

  it('shows a refresh in progress in the sidebar, for a file and for an import, and clears it when it ends', async () => {
    const orders = dataset('orders');
    const pg = dataset('pg_orders', { kind: 'postgres', source: 'connection sales', part: 'SELECT * FROM orders' });
    fake.listDatasets.mockResolvedValue([orders, pg]);
    let finish!: () => void;
    fake.refreshDataset.mockImplementation(() => new Promise<void>((r) => (finish = r)));
    render(<App />);
    const menu = async (name: string, item: string) => {
      fireEvent.click(await screen.findByRole('button', { name: `Actions for ${name}` }));
      fireEvent.click(screen.getByRole('menuitem', { name: item }));
    };

    await menu('pg_orders', 'Refresh');
    expect(fake.refreshDataset).toHaveBeenCalledWith('pg_orders');
    const loads = screen.getByTestId('loads');
    expect(loads).toHaveTextContent('connection sales → pg_orders');
    expect(loads).toHaveTextContent('Starting');
    act(() => emit('import:progress', { connection: 'sales', table: 'pg_orders', phase: 'reading', rows: 250_000, maxRows: 1_000_000 }));
    expect(loads).toHaveTextContent('Reading · 250,000 rows');
    // the import dialog's own imports are not shown here
    act(() => emit('import:progress', { connection: 'sales', table: 'other', phase: 'reading', rows: 5, maxRows: 10 }));
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);
    await act(async () => finish());
    expect(screen.queryByTestId('loads')).toBeNull();

    await menu('orders', 'Refresh');
    act(() => emit('load:progress', { file: '/data/orders.csv', table: 'orders', phase: 'reading', percent: 60, rows: 600, bytes: 600, totalBytes: 1000 }));
    expect(screen.getByRole('progressbar', { name: 'Loading orders.csv' })).toHaveAttribute('aria-valuenow', '60');
    await act(async () => finish());
    expect(screen.queryByTestId('loads')).toBeNull();
  });

  it('opens the files the desktop runtime reports dropped', async () => {
    render(<App />);
    await waitFor(() => expect(fake.onFileDrop).toHaveBeenCalled());
    act(() => emit('filedrop', ['/home/me/trips.parquet']));
    await waitFor(() => expect(fake.openFiles).toHaveBeenCalledWith(['/home/me/trips.parquet']));
  });
});

describe('asking', () => {
  beforeEach(() => {
    fake.listDatasets.mockResolvedValue([dataset('service_requests')]);
  });

  it('sends on Enter, streams the steps, stops on Esc, and writes the report', async () => {
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.change(box, { target: { value: 'Which agency gets the most 311 requests?' } });
    // Shift+Enter is a new line, not a send.
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(fake.ask).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: 'Enter' });
    await waitFor(() => expect(fake.ask).toHaveBeenCalledWith('chat1', 'Which agency gets the most 311 requests?'));
    expect(fake.newChat).toHaveBeenCalledTimes(1);
    expect(await screen.findByText('Which agency gets the most 311 requests?', { selector: '.bubble' })).toBeInTheDocument();

    const run = recordedRun('run-chart');
    const half = run.findIndex((e) => e.type === 'text_delta' && e.step === 4);
    sendEvents('run1', 'chat1', run.slice(0, half));
    expect(screen.getByText('Ran a query')).toBeInTheDocument();
    expect(screen.getByText('Drew a chart')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Stop/ })).toBeInTheDocument();

    fireEvent.keyDown(window, { key: 'Escape' });
    expect(fake.cancel).toHaveBeenCalledWith('run1');

    sendEvents('run1', 'chat1', run.slice(half));
    expect(await screen.findByTestId('findings')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Stop/ })).toBeNull();

    let written!: (v: Report) => void;
    fake.writeReport.mockImplementation(() => new Promise((r) => (written = r)));
    fireEvent.click(screen.getByRole('button', { name: /Generate report/ }));
    await waitFor(() => expect(fake.writeReport).toHaveBeenCalledWith('chat1', 'run1', []));
    expect(fake.getReport).toHaveBeenCalledWith('chat1', 'run1');
    act(() => emit('report:delta', { runId: 'run1', text: '# DOF fields most requests\n\n{{chart:c1}}' }));
    expect(screen.getByTestId('report')).toHaveTextContent('(chart c1)');
    await act(async () =>
      written({
        title: 'DOF fields most requests',
        markdown: '# DOF fields most requests\n\n![311 requests by agency](charts/c1.svg)\n',
        html: '<html></html>',
        charts: [{ ref: 'c1', svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>' }],
        turns: [1],
        notices: [],
        questions: ['Which agency gets the most 311 requests?'],
      }),
    );
    const img = await screen.findByRole('img', { name: '311 requests by agency' });
    expect(img.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);

    fake.exportReport.mockResolvedValue('/home/me/report');
    fireEvent.click(screen.getByRole('button', { name: /Export folder/ }));
    await waitFor(() => expect(fake.exportReport).toHaveBeenCalledWith('run1', 'folder'));
    expect(await screen.findByText('Saved the report to /home/me/report')).toBeInTheDocument();
  });

  it('shows the report kept in the store instead of writing it again', async () => {
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.change(box, { target: { value: 'Which agency gets the most 311 requests?' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    await waitFor(() => expect(fake.ask).toHaveBeenCalledTimes(1));
    sendEvents('run1', 'chat1', recordedRun('run-chart'));
    expect(await screen.findByTestId('findings')).toBeInTheDocument();
    fake.getReport.mockResolvedValue({
      title: 'Kept from yesterday',
      markdown: '# Kept from yesterday\n\nDOF leads.\n',
      html: '<h1>Kept from yesterday</h1>',
      charts: [],
      turns: null,
      notices: null,
      questions: null,
    });
    fireEvent.click(screen.getByRole('button', { name: /Generate report/ }));
    expect(await screen.findByText('DOF leads.')).toBeInTheDocument();
    expect(fake.getReport).toHaveBeenCalledWith('chat1', 'run1');
    expect(fake.writeReport).not.toHaveBeenCalled();
  });

  it('answers a clarifying question by clicking a suggestion', async () => {
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.change(box, { target: { value: 'How many requests per year?' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    await waitFor(() => expect(fake.ask).toHaveBeenCalledTimes(1));
    sendEvents('run1', 'chat1', recordedRun('run-question'));
    expect(await screen.findByPlaceholderText('Answer the question, or ask something else…')).toBeInTheDocument();
    fake.ask.mockResolvedValue({ runId: 'run2' });
    fireEvent.click(within(screen.getByTestId('question')).getByRole('button', { name: 'All years' }));
    await waitFor(() => expect(fake.ask).toHaveBeenLastCalledWith('chat1', 'All years'));
    expect(await screen.findByText('All years', { selector: '.bubble' })).toBeInTheDocument();
  });

  it('shows why a question was not sent', async () => {
    fake.ask.mockRejectedValue({ code: 'no_model', message: 'No model is set.', hint: 'Pick one in Settings.' });
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.change(box, { target: { value: 'Anything?' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    const note = await screen.findByRole('alert');
    expect(note).toHaveTextContent('No model is set.');
    expect(note).toHaveTextContent('Pick one in Settings.');
    // The question stays in the box to send again.
    expect(box).toHaveValue('Anything?');
  });

  it('asks what a hosted model may see before its first question, then sends it again', async () => {
    const local = await fake.getPrivacy();
    fake.getPrivacy.mockResolvedValue({ ...local, level: 'masked', local: false, host: 'api.openai.com', describe: 'as open, but masked' });
    fake.ask.mockRejectedValueOnce({ code: 'privacy', message: 'Choose what api.openai.com may see of your data before the first question.', hint: '' });
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.change(box, { target: { value: 'Top customers?' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    const chooser = await screen.findByTestId('privacy-chooser');
    expect(chooser).toHaveTextContent('Nothing has been sent yet');
    fireEvent.click(within(chooser).getByRole('radio', { name: /^schema/ }));
    fireEvent.click(within(chooser).getByRole('button', { name: /Use schema/ }));
    await waitFor(() => expect(screen.queryByTestId('privacy-chooser')).not.toBeInTheDocument());
    expect(fake.setPrivacy).toHaveBeenCalledWith('schema');
    expect(box).toHaveValue('Top customers?');
    fireEvent.keyDown(box, { key: 'Enter' });
    await waitFor(() => expect(fake.ask).toHaveBeenCalledTimes(2));
  });

  it('focuses the question box on Ctrl+K from anywhere', async () => {
    render(<App />);
    await screen.findByRole('textbox', { name: 'Question' });
    fireEvent.click(screen.getByRole('button', { name: /Settings/ }));
    fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Question' })).toHaveFocus());
  });
});
