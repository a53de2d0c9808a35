import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { idInOutput, isTaskTurn, outputsOf, outputsOfPrompt, promptOf } from '../__fixtures__/scripted-model';
import { requestJson, waitFor, waitForTurnEnd } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const quoteSchema = {
  type: 'object',
  properties: { price: { type: 'number' }, source: { type: 'string' } },
  required: ['price', 'source'],
  additionalProperties: false,
};

describe('switchyard serve: a text turn remembers a page, a workflow task turn recalls it (embedded PGlite)', () => {
  let served: FakeModelServe;

  beforeAll(async () => {
    served = await ServeFolder.serveOnFakeModel('serve-brain', {
      settings: { categories: { workflow: {}, brain: {} }, serve: { pollSeconds: 0.5 } },
      script: (request) => {
        const outputs = outputsOf(request);
        if (isTaskTurn(request)) {
          // The sub-agent looks the price up in the Brain, then submits what the page says.
          if (outputs.length === 0) {
            return toolCallStep('recall', { query: 'Acme X200 price' });
          }
          if (outputs.length === 1) {
            const recalled = outputs[0] ?? '';
            const price = Number(/X200 for (\d+) EUR/.exec(recalled)?.[1] ?? Number.NaN);
            const pageId = /page="([0-9a-f-]{36})"/.exec(recalled)?.[1] ?? 'none';
            return toolCallStep('submit_result', {
              price: Number.isFinite(price) ? price : -1,
              source: `brain page ${pageId}`,
            });
          }
          return { text: 'Submitted.' };
        }
        if (outputs.length > 0) return { text: 'Done.' };
        if (promptOf(request) === 'remember the Acme quote') {
          return toolCallStep('remember', {
            title: 'Supplier quotes',
            body: 'Acme sells the X200 for 410 EUR (quote of 2031-03-02, valid 30 days).',
            tags: ['suppliers'],
          });
        }
        return toolCallStep('workflow', {
          name: 'price check',
          tasks: [{ id: 'acme', prompt: 'What does Acme charge for the X200?', resultSchema: quoteSchema }],
        });
      },
    });
  }, 180_000);

  afterAll(() => served?.folder.remove(), 120_000);

  const finished = async (id: string) => (await waitForTurnEnd(served.url, id)).body;

  it('stores the page, and the task turn builds its stored result from what recall returned', async () => {
    const { folder, config, fake, serve, url } = served;
    const remembered = await requestJson(`${url}/v1/turns`, { body: { prompt: 'remember the Acme quote' } });
    expect(await finished(remembered.body.id as string)).toMatchObject({
      status: 'completed',
      output: 'Done.',
    });
    const rememberOutput = outputsOfPrompt(fake.requests, 'remember the Acme quote')[0];
    expect(rememberOutput).toMatch(/^Created page [0-9a-f-]{36} "Supplier quotes" \(version 1\)\.$/);
    const pageId = UUID.exec(rememberOutput ?? '')?.[0];

    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'check the Acme price' } });
    expect(await finished(started.body.id as string)).toMatchObject({ status: 'completed' });
    const workflowId = idInOutput(fake.requests, 'check the Acme price', 'price check');
    expect(workflowId).toBeDefined();

    // The task turn has the read-only pair and no tool that writes the Brain.
    const taskRequest = await waitFor('the task turn', () => fake.requests.find(isTaskTurn));
    expect(taskRequest.toolNames).toEqual(['recall', 'get_page', 'submit_result']);
    const submitting = await waitFor('the task turn to submit', () =>
      fake.requests.find((request) => isTaskTurn(request) && request.functionCallOutputs.length === 1),
    );
    const recalled = outputsOf(submitting)[0] ?? '';
    expect(recalled).toMatch(
      new RegExp(`<untrusted-brain-content-[0-9a-f]{16} page="${pageId}" title="Supplier quotes"`),
    );
    expect(recalled).toContain('Acme sells the X200 for 410 EUR');

    // The embedded database is the daemon's while it runs: read the stored result once it has stopped.
    await serve.terminate();
    const shown = await runCli(['workflows', 'show', workflowId as string, '--config', config], {
      cwd: folder.path,
    });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain('- acme: completed');
    expect(shown.stdout).toContain(`result: {"price":410,"source":"brain page ${pageId}"}`);
    const page = await runCli(['brain', 'show', pageId as string, '--config', config], { cwd: folder.path });
    expect(page.stdout).toContain(`Page ${pageId} of agent main: "Supplier quotes"`);
  }, 180_000);
});
