import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FakeRequest, FakeResponse } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { readEventStream, requestJson, waitFor } from './__fixtures__/http-client';
import { SERVE_BACKENDS, ServeFolder } from './__fixtures__/serve-folder';

// A real `switchyard serve` runs a turn two steps (each a `run_command` appending to a ledger file in
// the agent's home), then holds its third call (`write_file`) for approval and is stopped (SIGTERM:
// the turn is let go; or SIGKILL: it dies holding it). The approval is answered, and the next process continues the turn from its
// journal: the model is asked nothing again for the recorded steps, the recorded commands do not run
// again, the held call runs once, and the checkpoint stored with the held call is only what the
// journal does not hold (version 3). With `serve.journal: false` the same holds, and a turn that
// never held a call writes no journal at all.

const AGENT = 'keeper';

/**
 * `STEPS`: step 1 and 2 append `one` and `two` to ledger.log; step 3 writes held.txt (held for
 * approval); step 4 answers with what it read. `PLAIN`: one command appending `plain`, then an answer.
 */
function scriptOf(requests: Map<string, number[]>) {
  return (request: FakeRequest): FakeResponse => {
    const prompt = promptOf(request);
    const outputs = request.functionCallOutputs.map((output) => String(output.output));
    const seen = requests.get(prompt) ?? [];
    seen.push(outputs.length);
    requests.set(prompt, seen);
    const command = (line: string) => ({
      functionCalls: [
        { name: 'run_command', arguments: { command: `echo ${line} >> ledger.log` }, callId: `call_${line}` },
      ],
    });
    if (prompt === 'PLAIN') return outputs.length === 0 ? command('plain') : { text: 'plain done' };
    if (outputs.length === 0) return command('one');
    if (outputs.length === 1) return command('two');
    if (outputs.length === 2) {
      return {
        functionCalls: [
          { name: 'write_file', arguments: { path: 'held.txt', content: 'approved\n' }, callId: 'call_held' },
        ],
      };
    }
    return { text: `read: ${outputs.at(-1) ?? ''}` };
  };
}

const CASES = SERVE_BACKENDS.flatMap((backend) =>
  [true, false].flatMap((journal) =>
    (['SIGTERM', 'SIGKILL'] as const).map((signal) => ({ backend, journal, signal })),
  ),
);

for (const { backend, journal, signal } of CASES) {
  const title = `${backend.title}, serve.journal ${journal}, ${signal}`;
  describe.runIf(backend.runs)(`${title}: a held turn continues from its journal`, () => {
    let folder: ServeFolder;
    let home: string;
    let config: string;
    let fake: Awaited<ReturnType<ServeFolder['startFakeModel']>>;
    // The number of function outputs in each request of each prompt, in order: one per step.
    const requests = new Map<string, number[]>();
    // The lines of ledger.log, sorted (the two turns run side by side).
    const ledger = async () =>
      (await readFile(path.join(home, 'ledger.log'), 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .sort();

    beforeAll(async () => {
      folder = await ServeFolder.create(`held-journal-${backend.database}`, backend.database);
      home = path.join(folder.path, 'homes', AGENT);
      config = await folder.writeConfig({
        categories: { computer: { homeRoot: path.join(folder.path, 'homes') } },
        serve: { agents: [AGENT], port: 0, heartbeatMs: 200, staleTurnMs: 1_500, graceMs: 1_000, journal },
        approvals: { destructive: 'allow', tools: { write_file: 'ask' } },
      });
      fake = await folder.startFakeModel({ script: scriptOf(requests) });
    }, 120_000);

    afterAll(async () => {
      await folder?.remove(10_000);
    });

    it('asks nothing again for its recorded steps, runs no recorded call again, and runs the held call once', async () => {
      const first = await folder.startOnFakeModel(fake, ['--config', config]);
      const start = async (prompt: string) => {
        const started = await requestJson(`${first.url}/v1/turns`, { body: { prompt } });
        expect(started.status).toBe(202);
        return String(started.body.id);
      };
      const plain = await start('PLAIN');
      const turnId = await start('STEPS');
      await waitFor('the plain turn to end', async () =>
        (await requestJson(`${first.url}/v1/turns/${plain}`)).body.status === 'completed' ? true : undefined,
      );
      const approval = await waitFor('the held call', async () => {
        const listed = await requestJson(`${first.url}/v1/approvals`);
        const approvals = listed.body.approvals as Array<{ id: string; turnId: string; createdAt: string }>;
        return approvals.find((candidate) => candidate.turnId === turnId);
      });
      const approvalId = approval.id;
      if (signal === 'SIGTERM') {
        expect(await first.serve.terminate()).toBe(0);
        expect(first.serve.log).toContain('let 1 turn(s) waiting for approval go');
      } else {
        first.serve.child.kill('SIGKILL');
        expect(await first.serve.exited).toBe('SIGKILL');
      }
      expect(await ledger()).toEqual(['one', 'plain', 'two']);
      expect(existsSync(path.join(home, 'held.txt'))).toBe(false);

      // Between the processes: what is stored, and the answer.
      // A SIGKILLed process's PGlite lock goes a moment after it (its lock process sees it gone).
      const controlPlane = await waitFor('the database to be free', () =>
        folder.openControlPlane().catch((error: unknown) => {
          if (String(error).includes('is in use by process')) return undefined;
          throw error;
        }),
      );
      try {
        const checkpoint = (await controlPlane.turns.checkpoint(turnId)) as Record<string, unknown>;
        // Only what the journal does not hold: no transcript, events, usage or calls let run.
        expect(checkpoint).toMatchObject({ version: 3, activeMs: expect.any(Number) });
        expect(Object.keys(checkpoint).sort()).toEqual(['activeMs', 'instructions', 'version']);
        const recorded = await controlPlane.journals.read(turnId);
        // Three responses (the third asks for the held call) and the two commands' outputs.
        expect(recorded.responses.map((response) => response.iteration)).toEqual([1, 2, 3]);
        expect(recorded.outputs.map((output) => output.callId)).toEqual(['call_one', 'call_two']);
        // journal: false writes nothing for a turn that never held a call.
        const plainEntries = await controlPlane.journals.read(plain);
        expect(plainEntries.responses).toHaveLength(journal ? 2 : 0);
        expect(plainEntries.outputs).toHaveLength(journal ? 1 : 0);
        await controlPlane.approvals.answer({ id: approvalId, decision: 'allow', answeredBy: 'test' });
      } finally {
        await controlPlane.close();
      }

      const second = await folder.startOnFakeModel(fake, ['--config', config]);
      const ended = await waitFor(
        'the continued turn to end',
        async () => {
          const turn = (await requestJson(`${second.url}/v1/turns/${turnId}`)).body;
          return turn.endedAt === undefined ? undefined : turn;
        },
        60_000,
      );
      expect(ended).toMatchObject({ status: 'completed', iterations: 4 });
      // The held call ran once, here: it created the file (a second run would have overwritten it).
      expect(ended.output).toBe('read: Created held.txt (1 line, 9 bytes).');
      expect(await readFile(path.join(home, 'held.txt'), 'utf8')).toBe('approved\n');
      // The recorded commands did not run again.
      expect(await ledger()).toEqual(['one', 'plain', 'two']);
      // One request per step, whichever process: steps 1 to 3 were replayed from the journal.
      expect(requests.get('STEPS')).toEqual([0, 1, 2, 3]);

      const events = (await readEventStream(`${second.url}/v1/turns/${turnId}/events`)).map(
        (event) => event.data as { type: string; replayed?: boolean; name?: string; iteration?: number },
      );
      expect(
        events.filter((event) => event.type === 'model-request-end').map((event) => event.replayed),
      ).toEqual([true, true, true, undefined]);
      const calls = events.filter((event) => event.type === 'tool-call-end');
      expect(calls).toMatchObject([
        { name: 'run_command', outcome: 'completed', replayed: true },
        { name: 'run_command', outcome: 'completed', replayed: true },
        { name: 'write_file', outcome: 'completed', approval: { decision: 'allow' } },
      ]);
      expect(calls[2]).not.toHaveProperty('replayed');
      expect(events.filter((event) => event.type.startsWith('approval-')).map((event) => event.type)).toEqual(
        ['approval-requested', 'approval-resolved'],
      );
      // The request is shown when it was made, in the first process: the wait is visible.
      expect(events.find((event) => event.type === 'approval-requested')).toMatchObject({
        at: approval.createdAt,
        approval: { id: approvalId, status: 'pending' },
      });
      expect(second.serve.log).toContain(`turn ${turnId} goes on from its journal: 3 model response(s)`);
    });
  });
}
