import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FakeRequest, FakeResponse } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { requestJson, waitFor } from './__fixtures__/http-client';
import { SERVE_BACKENDS, ServeFolder } from './__fixtures__/serve-folder';

// A real `switchyard serve` on each backend, against a fake model that repeats and reuses call ids as
// an OpenAI-compatible endpoint or gateway may: calls of one response sharing an id run nowhere and
// ask for nothing; an id reused in a later response is a new call with an approval of its own. Every
// call that runs was approved with exactly its own arguments, and every turn ends with a recorded
// status within its limit.

const AGENT = 'ids';
const TURN_LIMIT_MS = 30_000;

/**
 * `DUP`: one response, two `read_file` and two `write_file` calls, each pair sharing a call id.
 * `REUSE <tag>`: `write_file` of <tag>-first.txt as `call_1`, then, in the next response, of
 * <tag>-second.txt as `call_1` again. Then the outputs, as text.
 */
function script(request: FakeRequest): FakeResponse {
  const prompt = promptOf(request);
  const outputs = request.functionCallOutputs.map((output) => String(output.output));
  if (prompt === 'DUP' && outputs.length === 0) {
    return {
      functionCalls: [
        { name: 'read_file', arguments: { path: 'public.txt' }, callId: 'call_read' },
        { name: 'read_file', arguments: { path: 'secret.txt' }, callId: 'call_read' },
        { name: 'write_file', arguments: { path: 'shown.txt', content: 'shown' }, callId: 'call_write' },
        { name: 'write_file', arguments: { path: 'hidden.txt', content: 'hidden' }, callId: 'call_write' },
      ],
    };
  }
  if (prompt.startsWith('REUSE ') && outputs.length < 2) {
    const tag = prompt.slice(6);
    const [file, content] = outputs.length === 0 ? [`${tag}-first.txt`, 'one'] : [`${tag}-second.txt`, 'two'];
    return { functionCalls: [{ name: 'write_file', arguments: { path: file, content }, callId: 'call_1' }] };
  }
  return { text: `outputs: ${outputs.join(' | ')}` };
}

for (const backend of SERVE_BACKENDS) {
  describe.runIf(backend.runs)(`${backend.title}: serve with repeated and reused call ids`, () => {
    let folder: ServeFolder;
    let url: string;
    let home: string;
    const request = (suffix: string, body?: unknown) =>
      requestJson(`${url}${suffix}`, body === undefined ? {} : { body });

    const startTurn = async (prompt: string) => {
      const started = await request('/v1/turns', { prompt });
      expect(started.status).toBe(202);
      return String(started.body.id);
    };
    const ended = (id: string) =>
      waitFor(
        `turn ${id} to end`,
        async () => {
          const turn = (await request(`/v1/turns/${id}`)).body;
          return turn.endedAt === undefined ? undefined : turn;
        },
        TURN_LIMIT_MS,
      );
    const approvalsOf = async (turnId: string) =>
      (await request(`/v1/approvals?turn=${turnId}&status=${'allowed'}`)).body.approvals as unknown[];
    /** The next pending approval of the turn, answered with `decision`. */
    const answerNext = async (turnId: string, decision: 'allow' | 'deny') => {
      const approval = await waitFor('a pending approval', async () => {
        const listed = await request(`/v1/approvals?turn=${turnId}`);
        return (listed.body.approvals as Array<Record<string, unknown>>)[0];
      });
      const answered = await request(`/v1/approvals/${String(approval.id)}`, { decision });
      expect(answered.status).toBe(200);
      return approval;
    };

    beforeAll(async () => {
      folder = await ServeFolder.create(`call-ids-${backend.database}`, backend.database);
      home = path.join(folder.path, 'homes', AGENT);
      const config = await folder.writeConfig({
        categories: { computer: { homeRoot: path.join(folder.path, 'homes') } },
        serve: { agents: [AGENT], port: 0, pollSeconds: 0.5, tickMs: 200 },
        limits: { turnTimeoutMs: TURN_LIMIT_MS },
        approvals: { destructive: 'ask', readOnly: 'ask', expiresInSeconds: 60 },
      });
      const fake = await folder.startFakeModel({ script });
      ({ url } = await folder.startOnFakeModel(fake, ['--config', config]));
    }, 120_000);

    afterAll(async () => {
      await folder?.remove(10_000);
    });

    it('runs none of the calls of one response that share a call id, and asks nobody about them', async () => {
      const id = await startTurn('DUP');
      const turn = await ended(id);
      expect(turn).toMatchObject({ status: 'completed', iterations: 2 });
      expect(String(turn.output)).toContain('had the same call id "call_read"');
      expect(String(turn.output)).toContain('had the same call id "call_write"');
      const all = await request(`/v1/approvals?turn=${id}&status=pending`);
      expect(all.body.approvals).toEqual([]);
      expect(existsSync(path.join(home, 'shown.txt'))).toBe(false);
      expect(existsSync(path.join(home, 'hidden.txt'))).toBe(false);
    });

    it('holds a call id reused in a later response as a new call, and each runs with its own approved arguments', async () => {
      const id = await startTurn('REUSE both');
      const first = await answerNext(id, 'allow');
      expect(first).toMatchObject({
        callId: 'call_1',
        arguments: { path: 'both-first.txt', content: 'one' },
      });
      const second = await answerNext(id, 'allow');
      expect(second).toMatchObject({
        callId: 'call_1',
        arguments: { path: 'both-second.txt', content: 'two' },
      });
      expect(second.id).not.toBe(first.id);
      expect(second.callIndex).not.toBe(first.callIndex);
      const turn = await ended(id);
      expect(turn.status).toBe('completed');
      expect(Date.parse(String(turn.endedAt)) - Date.parse(String(turn.createdAt))).toBeLessThan(
        TURN_LIMIT_MS,
      );
      // What ran is exactly what each approval holds.
      expect(await readFile(path.join(home, 'both-first.txt'), 'utf8')).toBe('one');
      expect(await readFile(path.join(home, 'both-second.txt'), 'utf8')).toBe('two');
      const allowed = (await approvalsOf(id)) as Array<{ arguments: unknown }>;
      expect(allowed.map((approval) => approval.arguments).toReversed()).toEqual([
        { path: 'both-first.txt', content: 'one' },
        { path: 'both-second.txt', content: 'two' },
      ]);
    });

    it('runs nothing of a reused call id whose own approval is denied, and records the turn’s end', async () => {
      const id = await startTurn('REUSE deny');
      await answerNext(id, 'allow');
      const denied = await answerNext(id, 'deny');
      expect(denied).toMatchObject({
        callId: 'call_1',
        arguments: { path: 'deny-second.txt', content: 'two' },
      });
      const turn = await ended(id);
      expect(turn.status).toBe('completed');
      expect(String(turn.output)).toContain('Tool call denied: an operator denied it');
      expect(await readFile(path.join(home, 'deny-first.txt'), 'utf8')).toBe('one');
      expect(existsSync(path.join(home, 'deny-second.txt'))).toBe(false);
    });
  });
}
