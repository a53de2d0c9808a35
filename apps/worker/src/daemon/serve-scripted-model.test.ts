import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream, requestJson, waitForTurnEnd } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';

// `switchyard serve --scripted-model`: the daemon (and so its console) on the built-in scripted model,
// with no API key, no model name and no endpoint configured anywhere.
describe('switchyard serve --scripted-model, with no API key', () => {
  let folder: ServeFolder;
  let serve: ServeProcess;
  let url: string;

  beforeAll(async () => {
    folder = await ServeFolder.create('scripted-model', 'pglite');
    const config = path.join(folder.path, 'switchyard.config.json');
    // No `model` section: the only model there is is the built-in one.
    await writeFile(config, JSON.stringify({ database: folder.databaseSettings }));
    // Nothing but PATH and HOME: no OPENAI_API_KEY, OPENAI_BASE_URL or SWITCHYARD_MODEL.
    serve = folder.start(['--port', '0', '--config', config, '--scripted-model'], {});
    url = await serve.ready;
  }, 180_000);

  afterAll(() => folder?.remove(), 120_000);

  it('says so in its log and in /healthz', async () => {
    expect(serve.log).toMatch(/switchyard serve: model: the built-in scripted model \(--scripted-model\)/);
    const health = await requestJson(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.scriptedModel).toEqual({
      summary: expect.stringMatching(/^the built-in scripted model .*no API key is used/),
    });
  });

  it('runs a posted turn to completion: a planning call, then an answer that says it is scripted', async () => {
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'What can you do?' } });
    expect(started.status).toBe(202);
    const turn = (await waitForTurnEnd(url, started.body.id as string)).body;
    expect(turn).toMatchObject({ status: 'completed', agent: 'main' });
    expect(turn.output).toMatch(/built-in scripted model: no model read your prompt \("What can you do\?"\)/);
    const events = await readEventStream(`${url}/v1/turns/${started.body.id as string}/events`);
    const calls = events.filter((event) => event.data.type === 'tool-call-end');
    expect(calls.map((event) => [event.data.name, event.data.isError])).toEqual([['update_todos', false]]);
  });
});

describe('switchyard serve without --scripted-model and no API key', () => {
  it('still refuses to start, naming the variables to set', async () => {
    const folder = await ServeFolder.create('no-model', 'none');
    try {
      const serve = folder.start(['--port', '0'], {}, { cwd: folder.path });
      expect(await serve.exited).toBe(2);
      expect(serve.log).toContain('OPENAI_API_KEY');
      expect(serve.log).toContain('SWITCHYARD_MODEL');
    } finally {
      await folder.remove();
    }
  });
});
