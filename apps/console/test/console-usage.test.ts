import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_TOKEN, ConsoleBrowser, READ_ONLY_TOKEN } from './__fixtures__/console-browser';
import { requestJson, waitFor } from './__fixtures__/daemon-requests';

// The console's usage page and a turn a budget ended, in a real chromium against a real `switchyard
// serve` child on PGlite with the fake model, whose every answer reports 300 tokens: the agent may
// spend 500 a day, so its third turn ends `budget-exceeded` before it asks anything.

describe('the console: usage against the budgets', () => {
  let bed: ConsoleBrowser;
  let page: Page;
  const turn = async (prompt: string) => {
    const started = await requestJson(`${bed.url}/v1/turns`, { body: { prompt }, token: BEARER_TOKEN });
    const id = String(started.body.id);
    return waitFor(`turn ${id} to end`, async () => {
      const answer = await requestJson(`${bed.url}/v1/turns/${id}`, { token: BEARER_TOKEN });
      return answer.body.status === 'running' ? undefined : answer.body;
    });
  };

  beforeAll(async () => {
    bed = await ConsoleBrowser.start({
      prefix: 'console-usage',
      settings: { budgets: { tokensPerDay: 500, workflowsPerHour: 3 } },
      script: () => ({ text: 'ok', usage: { inputTokens: 250, outputTokens: 50 } }),
    });
  }, 120_000);

  afterAll(async () => {
    await bed?.close();
  });

  it('shows the tokens of the last day against the limit, flagged at it, and the turn the budget ended', async () => {
    expect((await turn('first')).status).toBe('completed');
    expect((await turn('second')).status).toBe('completed');
    const ended = await turn('third');
    expect(ended).toMatchObject({ status: 'budget-exceeded', limitedBy: ['tokensPerDay'] });

    page = await bed.signedInPage(READ_ONLY_TOKEN, bed.url, '#/usage');
    const table = page.getByRole('table', { name: /What agent console spent, against its budgets/ });
    const row = (label: string) =>
      table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
    const tokens = row('Tokens in the last 24 hours');
    await tokens.getByRole('cell', { name: '120% (at its limit)' }).waitFor();
    await tokens.getByRole('cell', { name: '600', exact: true }).waitFor();
    await tokens.getByRole('cell', { name: '500', exact: true }).waitFor();
    await row('Workflows started in the last hour').getByRole('cell', { name: '0%' }).waitFor();
    await bed.screenshot(page, 'usage');

    // The turn's page says which limit ended it.
    await page.goto(`${bed.url}/#/turns/${String(ended.id)}`);
    await page.getByText('budget-exceeded', { exact: true }).first().waitFor();
    await page.getByText('tokensPerDay', { exact: true }).waitFor();
  });
});
