import { join } from 'node:path';
import { expect, openByPath, test } from './backend';
import { FIXTURES } from './paths';

// What a local model was sent: nothing left the machine, and the answer
// says where the model runs; the welcome screen says the same.
test.describe('privacy', () => {
  test.use({ script: { turns: [{ content: 'Nothing to look up: hello.' }] } });

  test('a local model: the welcome words and "What was sent" say nothing left the machine', async ({ page, backend }) => {
    await page.goto(backend.url);
    const privacy = await backend.call<{ host: string; local: boolean }>('GetPrivacy');
    expect(privacy.local).toBe(true);
    await expect(page.getByTestId('privacy-words')).toHaveText(
      `Your files never leave your machine: the model runs on ${privacy.host}.`,
    );

    await openByPath(page, join(FIXTURES, 'service_requests.csv'));
    await expect(page.getByTestId('dataset')).toContainText('service_requests');
    const box = page.getByRole('textbox', { name: 'Question' });
    await box.fill('Hello?');
    await box.press('Enter');
    const turn = page.getByTestId('turn').last();
    await expect(turn).toHaveAttribute('data-status', 'done');
    await turn.getByText('What was sent').click();
    await expect(turn.getByTestId('sent')).toContainText(`Nothing left this machine: the model runs on ${privacy.host}.`);
  });
});
