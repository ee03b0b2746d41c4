import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { WhatWasSent, formatBytes, messageCount } from './WhatWasSent';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const body = '{"model":"gpt-4o","messages":[{"role":"system","content":"You are Loupe"},{"role":"user","content":"Top region?"}]}';

function open() {
  fireEvent.click(screen.getByText('What was sent'));
  const details = screen.getByTestId('sent') as HTMLDetailsElement;
  details.open = true;
  fireEvent(details, new Event('toggle'));
}

describe('WhatWasSent', () => {
  it('lists each request with its size, address, messages and level, and shows the body on demand', async () => {
    fake.sentOf.mockResolvedValue({
      messageId: 'msg1',
      known: true,
      level: 'masked',
      describe: 'as open, but values of private columns are replaced by placeholders such as <email_3>',
      server: 'api.openai.com',
      local: false,
      bytes: body.length + 2048,
      summary: 'Sent to api.openai.com at privacy level masked: as open, but values of private columns are replaced by placeholders such as <email_3>.',
      requests: [
        { at: '2026-11-25T17:00:00Z', method: 'POST', url: 'https://api.openai.com/v1/chat/completions', size: body.length, body, pretty: JSON.stringify(JSON.parse(body), null, 2) },
        { at: '2026-11-25T17:00:01Z', method: 'POST', url: 'https://api.openai.com/v1/chat/completions', size: 2048, body: '', pretty: '', dropped: true },
      ],
    });
    renderWithStore(<WhatWasSent runId="run-7" />);
    expect(fake.sentOf).not.toHaveBeenCalled(); // nothing is read until asked
    open();
    await waitFor(() => expect(screen.getByText(/Sent to api.openai.com at privacy level masked/)).toBeInTheDocument());
    expect(fake.sentOf).toHaveBeenCalledWith('run-7');
    expect(screen.getByText(/2 requests/)).toHaveTextContent('level masked');
    const items = screen.getAllByTestId('sent-request');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent(`${body.length} B POST https://api.openai.com/v1/chat/completions · 2 messages`);
    expect(items[1]).toHaveTextContent('2.0 KB');
    expect(items[1]).toHaveTextContent('Body let go');
    fireEvent.click(screen.getByText('Body'));
    expect(items[0]!.querySelector('pre')!.textContent).toContain('"content": "Top region?"');
  });

  it('says nothing left the machine for a local model', async () => {
    renderWithStore(<WhatWasSent runId="run-local" />);
    open();
    await waitFor(() =>
      expect(screen.getByText('Nothing left this machine: the model runs on 127.0.0.1:11434.')).toBeInTheDocument(),
    );
    expect(screen.queryAllByTestId('sent-request')).toHaveLength(0);
  });

  it('shows the error when the record cannot be read', async () => {
    fake.sentOf.mockRejectedValue({ code: 'not_found', message: 'No answer of run run-x.', hint: '' });
    renderWithStore(<WhatWasSent runId="run-x" />);
    open();
    await waitFor(() => expect(screen.getByText('No answer of run run-x.')).toBeInTheDocument());
  });

  it('counts messages and sizes', () => {
    expect(messageCount(body)).toBe(2);
    expect(messageCount('not json')).toBeNull();
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});
