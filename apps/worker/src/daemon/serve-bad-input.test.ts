import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, requestJson } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

// One case of each kind of bad input through a real `switchyard serve` process serving only agent
// `ops` (http/bad-input.test.ts has them all, in process): a tampered cursor, a bad limit, a
// NUL in a prompt and in an approval's reason, and a turn of another agent asked for by its id.

const OTHER_TURN = 'turn_00000000-0000-4000-8000-000000000001';
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('switchyard serve answers bad input with 400 naming the field, and 404 for other agents', () => {
  let served: FakeModelServe;

  beforeAll(async () => {
    served = await ServeFolder.serveOnFakeModel('bad-input', {
      script: [],
      settings: { categories: { computer: { homeRoot: 'homes' } }, serve: { agents: ['ops'] } },
      // A turn of agent `main`, recorded on the shared database before this process starts.
      prepare: async (folder) => {
        const controlPlane = await folder.openControlPlane();
        try {
          await controlPlane.turns.recordStart({
            id: OTHER_TURN,
            agentId: 'main',
            source: 'api',
            prompt: 'not yours',
            workerId: 'elsewhere',
          });
        } finally {
          await controlPlane.close();
        }
      },
    });
  });

  afterAll(async () => {
    await served?.folder.remove(10_000);
  });

  it.each([
    [
      'a cursor naming a day that does not exist',
      `/v1/turns?cursor=${base64('["2024-02-30T00:00:00Z","turn_x"]')}`,
      'cursor',
    ],
    ['a cursor with a NUL', '/v1/approvals?cursor=abc%00', 'cursor'],
    ['a limit past the maximum', '/v1/approvals?limit=101', 'limit'],
  ])('GET: %s', async (_, path, field) => {
    const answer = await rawRequest(served.url, path);
    expect(answer.status, answer.text).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_query', fields: [field] } });
  });

  it('POST: a NUL in a prompt and a lone surrogate in a reason', async () => {
    const turn = await requestJson(`${served.url}/v1/turns`, { body: { prompt: 'a\u0000b' } });
    expect(turn).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body', fields: ['prompt'] } },
    });
    const answer = await requestJson(
      `${served.url}/v1/approvals/approval_00000000-0000-4000-8000-000000000002`,
      {
        body: { decision: 'deny', reason: 'a\ud800b' },
      },
    );
    expect(answer).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_body', fields: ['reason'] } },
    });
    expect(served.fake.requests).toEqual([]);
  });

  it("GET and POST of another agent's turn are 404, and the turn is left as it was", async () => {
    expect((await requestJson(`${served.url}/v1/turns/${OTHER_TURN}`)).status).toBe(404);
    const cancelled = await requestJson(`${served.url}/v1/turns/${OTHER_TURN}/cancel`, { method: 'POST' });
    expect(cancelled).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    await served.serve.terminate(10_000);
    const controlPlane = await served.folder.openControlPlane();
    try {
      // (The process's sweep of interrupted turns may have marked it: that is not the API's doing.)
      const record = await controlPlane.turns.get(OTHER_TURN);
      expect(record).toMatchObject({ agentId: 'main', prompt: 'not yours' });
      expect(record?.cancelRequested).toBeUndefined();
    } finally {
      await controlPlane.close();
    }
  });
});
