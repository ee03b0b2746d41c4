import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PrivacyState } from '../../api';
import { fake, resetFake } from '../../test/fakeApi';
import { renderWithStore } from '../../test/render';
import { PrivacyChooser, PrivacySettings, privacyWords } from './Privacy';

vi.mock('../../api', async () => (await import('../../test/fakeApi')).apiModule());

beforeEach(() => resetFake());

const masked = 'as open, but values of private columns are replaced by placeholders such as <email_3>';

async function hosted(): Promise<PrivacyState> {
  const local = await fake.getPrivacy();
  return { ...local, level: 'masked', describe: masked, host: 'api.openai.com', local: false, chosen: false };
}

describe('privacy', () => {
  it('words the welcome promise by the level in force', async () => {
    const local = await fake.getPrivacy();
    expect(privacyWords(local)).toBe('Your files never leave your machine: the model runs on 127.0.0.1:11434.');
    expect(privacyWords(await hosted())).toBe(`Your files stay on your machine; api.openai.com sees ${masked}.`);
    expect(privacyWords(null)).toBe('Your files stay on your machine.');
  });

  it('asks what a hosted model may see before the first question, defaulting to its level', async () => {
    fake.getPrivacy.mockResolvedValue(await hosted());
    const chosen = vi.fn();
    renderWithStore(<PrivacyChooser onChosen={chosen} />);
    await waitFor(() => expect(screen.getByText('Choose what api.openai.com may see')).toBeInTheDocument());
    expect(screen.getByRole('radio', { name: /^masked/ })).toBeChecked();
    expect(screen.getByText(/names, types, notes, row counts/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('radio', { name: /^schema/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Use schema, then send the question again' }));
    await waitFor(() => expect(chosen).toHaveBeenCalled());
    expect(fake.setPrivacy).toHaveBeenCalledWith('schema');
  });

  it('sets the level of the saved server in Settings', async () => {
    fake.getPrivacy.mockResolvedValue(await hosted());
    renderWithStore(<PrivacySettings refresh={1} />);
    await waitFor(() => expect(screen.getByTestId('privacy-settings')).toHaveTextContent('Until you choose, it gets level masked'));
    fake.getPrivacy.mockResolvedValue({ ...(await hosted()), level: 'open', chosen: true, describe: 'everything' });
    fireEvent.click(screen.getByRole('radio', { name: /^open/ }));
    await waitFor(() => expect(screen.getByTestId('privacy-settings')).toHaveTextContent('You chose level open'));
    expect(fake.setPrivacy).toHaveBeenCalledWith('open');
  });
});
