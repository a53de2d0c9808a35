import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FakeRequest, FakeResponse } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { readEventStream, requestJson, waitFor } from './__fixtures__/http-client';
import { SERVE_BACKENDS, ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';

// A real `switchyard serve` SIGKILLed mid-turn and started again on the same folder, on each backend:
// its API turns resume from their journals. Every execution of a command appends a line to a ledger
// file in the agent's home (outside the control plane): a recorded call never runs twice, a recorded
// model response is never asked for again, and a call the process was running when it died is not run
// again (`run_command` is neither read-only nor idempotent) but reported in doubt to the model.

const AGENT = 'durable';
const HANG: FakeResponse = { delayMs: 120_000, text: 'never answered: the process is killed first' };

/**
 * `DURING`: one `run_command` that appends to during.log, then sleeps (the process dies in it).
 * `AFTER`: one `run_command` that appends to after.log and ends; the next request hangs the first time
 * (the process dies waiting for it). Then each turn answers with the outputs it read.
 */
function scriptOf(requests: Map<string, number[]>) {
  return (request: FakeRequest): FakeResponse => {
    const prompt = promptOf(request);
    const outputs = request.functionCallOutputs.map((output) => String(output.output));
    const seen = requests.get(prompt) ?? [];
    seen.push(outputs.length);
    requests.set(prompt, seen);
    if (outputs.length === 0) {
      const command = prompt === 'DURING' ? 'echo ran >> during.log && sleep 60' : 'echo ran >> after.log';
      return { functionCalls: [{ name: 'run_command', arguments: { command }, callId: 'call_1' }] };
    }
    if (prompt === 'AFTER' && seen.filter((count) => count > 0).length === 1) return HANG;
    return { text: `read: ${outputs.join(' | ')}` };
  };
}

for (const backend of SERVE_BACKENDS) {
  describe.runIf(backend.runs)(`${backend.title}: serve resumes API turns after a SIGKILL`, () => {
    let folder: ServeFolder;
    let home: string;
    let config: string;
    let fake: Awaited<ReturnType<ServeFolder['startFakeModel']>>;
    // The number of function outputs in each request of each prompt, in order.
    const requests = new Map<string, number[]>();
    const ledger = async (file: string) =>
      (await readFile(path.join(home, file), 'utf8').catch(() => '')).split('\n').filter(Boolean);

    beforeAll(async () => {
      folder = await ServeFolder.create(`durable-${backend.database}`, backend.database);
      home = path.join(folder.path, 'homes', AGENT);
      config = await folder.writeConfig({
        categories: { computer: { homeRoot: path.join(folder.path, 'homes') } },
        // A process taken for dead after 1.5 s on PostgreSQL (at once on PGlite, one process's).
        serve: { agents: [AGENT], port: 0, heartbeatMs: 200, staleTurnMs: 1_500, graceMs: 500 },
        limits: { turnTimeoutMs: 60_000 },
      });
      fake = await folder.startFakeModel({ script: scriptOf(requests) });
    }, 120_000);

    afterAll(async () => {
      await folder?.remove(10_000);
    });

    it('replays what was recorded, runs nothing twice, and reports the call it died in as in doubt', async () => {
      const first = await folder.startOnFakeModel(fake, ['--config', config]);
      const start = async (prompt: string) => {
        const started = await requestJson(`${first.url}/v1/turns`, { body: { prompt } });
        expect(started.status).toBe(202);
        return String(started.body.id);
      };
      const during = await start('DURING');
      const after = await start('AFTER');
      await waitFor('the command to be running and the follow-up to be asked for', async () =>
        (await ledger('during.log')).length === 1 && (requests.get('AFTER') ?? []).length === 2
          ? true
          : undefined,
      );
      first.serve.child.kill('SIGKILL');
      expect(await first.serve.exited).toBe('SIGKILL');

      const second = folder.start(['--config', config], {
        OPENAI_BASE_URL: fake.baseURL,
        SWITCHYARD_MODEL: 'fake-model',
      });
      const url = await second.ready;
      const ended = (id: string) =>
        waitFor(
          `turn ${id} to end`,
          async () => {
            const turn = (await requestJson(`${url}/v1/turns/${id}`)).body;
            return turn.endedAt === undefined ? undefined : turn;
          },
          90_000,
        );
      const duringTurn = await ended(during);
      const afterTurn = await ended(after);

      // Each command ran once, whatever the crash.
      expect(await ledger('during.log')).toEqual(['ran']);
      expect(await ledger('after.log')).toEqual(['ran']);
      // DURING: its first response replayed (asked once); its call in doubt, not run again.
      expect(requests.get('DURING')).toEqual([0, 1]);
      expect(duringTurn).toMatchObject({ status: 'completed' });
      expect(String(duringTurn.output)).toMatch(/^read: Not run again: the worker running this turn stopped/);
      // AFTER: its first response replayed and its output reused; the unanswered request asked again.
      expect(requests.get('AFTER')).toEqual([0, 1, 1]);
      expect(afterTurn).toMatchObject({ status: 'completed', output: expect.stringContaining('read: ') });
      expect(String(afterTurn.output)).not.toContain('Not run again');

      const events = async (id: string) =>
        (await readEventStream(`${url}/v1/turns/${id}/events`)).map((event) => event.data);
      const duringEvents = await events(during);
      expect(duringEvents).toContainEqual(
        expect.objectContaining({ type: 'model-request-end', iteration: 1, replayed: true }),
      );
      expect(duringEvents).toContainEqual(
        expect.objectContaining({ type: 'tool-call-end', outcome: 'in-doubt', inDoubt: true }),
      );
      const afterEvents = await events(after);
      expect(afterEvents).toContainEqual(
        expect.objectContaining({ type: 'tool-call-end', outcome: 'completed', replayed: true }),
      );
      expect(resumedLines(second)).toHaveLength(2);
    });
  });
}

/** The lines in which the process says it resumed a turn from its journal. */
function resumedLines(serve: ServeProcess): string[] {
  return serve.log.split('\n').filter((line) => line.includes('resuming turn'));
}
