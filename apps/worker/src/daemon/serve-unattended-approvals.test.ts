import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputsOfPrompt, promptOf } from '../__fixtures__/scripted-model';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

// A real `switchyard serve` process whose configuration has no `approvals` section: a schedule fires
// a turn nobody watches, and its destructive call waits for an operator instead of running. An API
// turn's destructive call runs as it always did. The start-up log says which policy the agent runs under.

describe('switchyard serve without an approvals section', () => {
  let served: FakeModelServe;
  let home: string;

  beforeAll(async () => {
    served = await ServeFolder.serveOnFakeModel('unattended', {
      script: (request) => {
        const prompt = promptOf(request);
        if (request.functionCallOutputs.length > 0) return { text: `done: ${prompt}` };
        return toolCallStep('write_file', { path: `${prompt}.txt`, content: `${prompt}\n` });
      },
      settings: { categories: { computer: { homeRoot: 'homes' }, schedule: {} } },
      args: ['--tick-ms', '200'],
      // The schedule exists before the process starts (PGlite is one process's database); its slot,
      // missed while no process ran, fires once one does.
      prepare: async (folder) => {
        const controlPlane = await folder.openControlPlane();
        try {
          await controlPlane.schedules.createSchedule({
            agentId: 'main',
            name: 'nightly',
            prompt: 'scheduled',
            runAt: new Date(Date.now() + 1_000).toISOString(),
          });
        } finally {
          await controlPlane.close();
        }
      },
    });
    home = path.join(served.folder.path, 'homes', 'main');
  });

  afterAll(async () => {
    await served?.folder.remove(10_000);
  });

  it('says at start-up which calls of the agent run with nobody watching', () => {
    expect(served.serve.log).toContain(
      'switchyard serve: agent main: destructive calls run in api turns (default) and wait for an approval in schedule, task and job turns (default); read-only calls run (default); no tool listed; held calls expire after 3600 s',
    );
  });

  it("holds a schedule-fired turn's destructive call for an operator, and runs it once allowed", async () => {
    const listed = await waitFor('the scheduled call to be held', async () => {
      const answer = await requestJson(`${served.url}/v1/approvals`);
      const approvals = answer.body.approvals as Array<Record<string, unknown>>;
      return approvals.length > 0 ? approvals : undefined;
    });
    expect(listed).toMatchObject([
      {
        source: 'schedule',
        toolKey: 'write_file',
        status: 'pending',
        arguments: { path: 'scheduled.txt', content: 'scheduled\n' },
      },
    ]);
    const turnId = String(listed[0]?.turnId);
    expect((await requestJson(`${served.url}/v1/turns/${turnId}`)).body.status).toBe('waiting-approval');
    expect(existsSync(path.join(home, 'scheduled.txt'))).toBe(false);

    const answered = await requestJson(`${served.url}/v1/approvals/${String(listed[0]?.id)}`, {
      body: { decision: 'allow' },
    });
    expect(answered).toMatchObject({ status: 200, body: { status: 'allowed' } });
    const ended = await waitFor('the scheduled turn to end', async () => {
      const answer = await requestJson(`${served.url}/v1/turns/${turnId}`);
      return answer.body.status === 'completed' ? answer.body : undefined;
    });
    expect(ended).toMatchObject({ source: 'schedule', output: 'done: scheduled' });
    expect(await readFile(path.join(home, 'scheduled.txt'), 'utf8')).toBe('scheduled\n');
  });

  it("runs an API turn's destructive call without asking, as before", async () => {
    const started = await requestJson(`${served.url}/v1/turns`, { body: { prompt: 'asked' } });
    expect(started.status).toBe(202);
    const ended = await waitFor('the API turn to end', async () => {
      const answer = await requestJson(`${served.url}/v1/turns/${String(started.body.id)}`);
      return answer.body.status === 'running' ? undefined : answer.body;
    });
    expect(ended).toMatchObject({ status: 'completed', output: 'done: asked' });
    expect(await readFile(path.join(home, 'asked.txt'), 'utf8')).toBe('asked\n');
    expect(outputsOfPrompt(served.fake.requests, 'asked').join('\n')).not.toContain('denied');
    const approvals = await requestJson(`${served.url}/v1/approvals?status=allowed`);
    expect((approvals.body.approvals as unknown[]).length).toBe(1);
  });
});
