import { fileURLToPath } from 'node:url';
import { toolCallStep } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { outputsOfPrompt, promptOf } from '../__fixtures__/scripted-model';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { serveForSuite } from './__fixtures__/serve-folder';

// A real `switchyard serve` process that collects garbage every 250 ms (node --expose-gc and a preloaded
// fixture): the load under which a limit that nothing owns is collected before it fires (Node 20
// collects an AbortSignal.timeout that only an AbortSignal.any refers to). The turn limit and an
// approval's expiry must fire all the same.

const collectGarbageOften = fileURLToPath(
  new URL('../__fixtures__/collect-garbage-often.mjs', import.meta.url),
);

describe('switchyard serve under a full garbage collection every 250 ms', () => {
  const served = serveForSuite('limits-gc', {
    script: (request) => {
      const prompt = promptOf(request);
      if (prompt === 'SLOW') return { text: 'an answer that comes too late', delayMs: 60_000 };
      if (request.functionCallOutputs.length > 0) return { text: 'noted' };
      return toolCallStep('write_file', { path: 'held.txt', content: 'never written\n' });
    },
    settings: {
      categories: { computer: { homeRoot: 'homes' } },
      // Room for the held turn (its approval expires after 1 s, found by a sweep, then one more
      // request) on a heavily loaded machine, well under the slow answer's 60 s.
      limits: { turnTimeoutMs: 20_000 },
      approvals: { destructive: 'ask', expiresInSeconds: 1 },
    },
    process: { nodeArguments: ['--expose-gc', '--import', collectGarbageOften] },
    removeTimeoutMs: 10_000,
  });

  // The two limits' tests run at once: each mostly waits for its limit (20 s and about 1 s), and a
  // process under forced collections keeps a core busy the whole time it lives.
  it.concurrent('ends a turn at limits.turnTimeoutMs', async ({ expect }) => {
    const started = await requestJson(`${served().url}/v1/turns`, { body: { prompt: 'SLOW' } });
    expect(started.status).toBe(202);
    const ended = await waitFor(
      'the slow turn to end',
      async () => {
        const answer = await requestJson(`${served().url}/v1/turns/${String(started.body.id)}`);
        return answer.body.status === 'running' ? undefined : answer.body;
      },
      90_000,
    );
    // Without an owned timer the turn would wait the model's 60 s and complete.
    expect(ended).toMatchObject({
      status: 'aborted',
      error: 'the turn ran longer than its limit of 20000 ms (limits.turnTimeoutMs)',
    });
  });

  it.concurrent('denies a held call once its approval expires, and the model reads why', async ({
    expect,
  }) => {
    const started = await requestJson(`${served().url}/v1/turns`, { body: { prompt: 'WRITE' } });
    expect(started.status).toBe(202);
    const id = String(started.body.id);
    const ended = await waitFor(
      'the held turn to end',
      async () => {
        const answer = await requestJson(`${served().url}/v1/turns/${id}`);
        const status = answer.body.status;
        return status === 'running' || status === 'waiting-approval' ? undefined : answer.body;
      },
      60_000,
    );
    expect(ended).toMatchObject({ status: 'completed', output: 'noted' });
    const approvals = await requestJson(`${served().url}/v1/approvals?status=expired&turn=${id}`);
    expect(approvals.body.approvals).toMatchObject([{ toolKey: 'write_file', status: 'expired' }]);
    expect(outputsOfPrompt(served().fake.requests, 'WRITE').join('\n')).toContain('its approval expired');
  });

  it('ran under forced collections', async () => {
    const code = await served().serve.terminate(10_000);
    expect(code).toBe(0);
    const collections = Number(/forced garbage collections: (\d+)/.exec(served().serve.log)?.[1]);
    // The process lived through the 20 s turn limit: about 80 collections then, 20 on a machine so
    // loaded that its timers run late.
    expect(collections).toBeGreaterThanOrEqual(20);
  });
});
