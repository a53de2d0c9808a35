import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../__fixtures__/run-cli';
import { promptOf } from '../__fixtures__/scripted-model';
import { rawRequest, sendRequest, waitFor } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

// Load shedding through a real `switchyard serve` process: past `serve.maxWaitingWork` a new turn is
// answered 503 with Retry-After and nothing is recorded, while reads, cancels and /healthz are still
// answered; a bad bound fails at start-up naming the field.

describe('switchyard serve sheds load past serve.maxWaitingWork (embedded PGlite)', () => {
  let served: FakeModelServe;

  beforeAll(async () => {
    served = await ServeFolder.serveOnFakeModel('shedding', {
      settings: { categories: {}, serve: { agents: ['ada'], maxWaitingWork: 2, graceMs: 500 } },
      // A HOLD turn's model answer never comes while the test runs (it is cancelled instead).
      script: (request) =>
        promptOf(request).startsWith('HOLD')
          ? { delayMs: 120_000, text: 'too late' }
          : { text: `answered: ${promptOf(request)}` },
    });
  }, 180_000);

  afterAll(() => served?.folder.remove(10_000), 180_000);

  const startTurn = (prompt: string) =>
    rawRequest(served.url, '/v1/turns', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
  const turns = async () =>
    (JSON.parse((await sendRequest(`${served.url}/v1/turns`, {})).text) as { turns: Array<{ id: string }> })
      .turns;

  it('answers 503 with Retry-After for a turn past the bound, records nothing, and still answers reads, cancels and /healthz', async () => {
    const held = [await startTurn('HOLD one'), await startTurn('HOLD two')];
    expect(held.map((answer) => answer.status)).toEqual([202, 202]);

    const refused = await startTurn('HOLD three');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        code: 'overloaded',
        message:
          'this process has 0 request(s) under way and 2 turn(s) running, at its bound of 2 (serve.maxWaitingWork): nothing was done; send it again after 2 s',
      },
    });
    // Workflows start work too.
    const workflow = await sendRequest(`${served.url}/v1/workflows`, {
      body: { name: 'shed', tasks: [{ id: 't', prompt: 'p', resultSchema: { type: 'object' } }] },
    });
    expect(workflow.status).toBe(503);

    // Reads and cancels are not new work: answered while the turns fill the bound.
    expect(await turns()).toHaveLength(2);
    expect((await sendRequest(`${served.url}/healthz`, {})).status).toBe(200);
    const [first] = held.map((answer) => JSON.parse(answer.text) as { id: string });
    const cancelled = await sendRequest(`${served.url}/v1/turns/${first?.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(202);
    await waitFor('the cancelled turn to end', async () => {
      const answer = JSON.parse((await sendRequest(`${served.url}/v1/turns/${first?.id}`, {})).text) as {
        status: string;
      };
      return answer.status === 'aborted' ? true : undefined;
    });

    // A place is free again: the next turn is taken, and the log says what happened, in two lines.
    const taken = await startTurn('after the burst');
    expect(taken.status).toBe(202);
    expect(await turns()).toHaveLength(3);
    expect(served.serve.log).toContain(
      'switchyard serve: over its bound of waiting work, answering 503: this process has 0 request(s) under way and 2 turn(s) running, at its bound of 2 (serve.maxWaitingWork)',
    );
    expect(served.serve.log).toContain(
      'switchyard serve: taking requests again after answering 2 with 503 (serve.maxWaitingWork 2)',
    );
  });

  it('refuses a bound that is not a whole number of at least 1 at start-up, naming serve.maxWaitingWork', async () => {
    const config = await served.folder.writeConfig({ serve: { maxWaitingWork: 0 } });
    const run = await runCli(['serve', '--config', config, '--port', '0'], {
      cwd: served.folder.path,
      env: { OPENAI_BASE_URL: served.fake.baseURL },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('serve.maxWaitingWork');
  });
});
