import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeRequest, type FakeResponse, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser } from './__fixtures__/console-browser';
import { requestJson, waitFor } from './__fixtures__/daemon-requests';
import { promptOf } from './__fixtures__/model-requests';
import type { ServeDaemon } from './__fixtures__/serve-daemon';

// A turn let go while it waited for approval (its daemon was stopped, SIGTERM) and answered from the
// console of the daemon started next: until that daemon's heartbeat claims it, its page says it is
// answered and continues within the heartbeat the session publishes, then it completes.

/** `WRITE <file>`: one `write_file` (held: destructive calls ask), then `Done.` with its output. */
function script(request: FakeRequest): FakeResponse {
  if (request.functionCallOutputs.length > 0) return { text: 'Done.' };
  const prompt = promptOf(request);
  if (prompt.startsWith('WRITE '))
    return toolCallStep('write_file', { path: prompt.slice(6), content: 'kept\n' });
  return { text: 'ok' };
}

// The restarted daemon's first claim of answered turns is one heartbeat after it listens (its timer
// starts then), so the page has that long to show the hint: the steps before it take a few seconds.
const HEARTBEAT_MS = 15_000;

describe('the console: a turn let go while waiting for approval', () => {
  let bed: ConsoleBrowser;
  let restarted: ServeDaemon | undefined;

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-let-go',
      script,
      settings: { approvals: { destructive: 'ask' } },
    });
  }, 120_000);

  afterAll(async () => {
    // The restarted daemon shares the first one's folder and database: stop it before they go.
    await restarted?.stop();
    await bed?.close();
  }, 120_000);

  it('says when an answered, let-go turn continues, and the turn then completes', async () => {
    const started = await requestJson(`${bed.url}/v1/turns`, {
      body: { prompt: 'WRITE kept.txt' },
      token: BEARER_TOKEN,
    });
    const turnId = String(started.body.id);
    await waitFor('the approval', async () => {
      const listed = await requestJson(`${bed.url}/v1/approvals?turn=${turnId}`, { token: BEARER_TOKEN });
      return (listed.body.approvals as unknown[])[0];
    });
    restarted = await bed.daemon.restart({ heartbeatMs: HEARTBEAT_MS, staleTurnMs: 60_000 });
    const listening = performance.now();
    const url = restarted.url;
    const session = await requestJson(`${url}/v1/session`, { token: BEARER_TOKEN });
    expect(session.body.continueAnsweredWithinMs).toBe(HEARTBEAT_MS);

    const page = await bed.signedInPage(BEARER_TOKEN, url, `#/turns/${turnId}`);
    const status = page.locator('dl.facts').first().locator('dd').first();
    await status.getByText('waiting-approval').waitFor();
    // Its approval still pending (the list is loaded: the badge counts it): no hint.
    await page.getByRole('link', { name: 'Approvals 1 pending' }).waitFor();
    expect(await status.textContent()).not.toContain('continues within');

    // Allowed in another tab: this one learns it from the live feed.
    const approvals = await bed.signedInPage(BEARER_TOKEN, url, '#/approvals');
    const card = approvals.getByRole('article', { name: 'Writing kept.txt' });
    await card.getByRole('button', { name: 'Allow' }).click();
    await card.waitFor({ state: 'detached' });
    await status.getByText(`(answered: continues within ${HEARTBEAT_MS / 1000} s)`).waitFor();
    console.log(
      `console: the let-go hint shown ${Math.round(performance.now() - listening)} ms after the daemon listened`,
    );
    expect(await status.textContent()).toContain('waiting-approval');

    // The next heartbeat claims it: it completes, and the hint goes with the status.
    await waitFor(
      'the turn to complete',
      async () => {
        const turn = await requestJson(`${url}/v1/turns/${turnId}`, { token: BEARER_TOKEN });
        return turn.body.status === 'completed' ? true : undefined;
      },
      HEARTBEAT_MS * 4,
    );
    await status.getByText('completed').waitFor();
    expect(await status.textContent()).not.toContain('continues within');
    expect(await readFile(path.join(restarted.folder, 'homes', 'console', 'kept.txt'), 'utf8')).toBe(
      'kept\n',
    );
  }, 120_000);
});
