import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import { postgresTitle, postgresUrl } from '@switchyard/test-databases';
import type { FakeResponsesServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { sendRequest, waitFor } from './__fixtures__/http-client';
import { ServeFolder } from './__fixtures__/serve-folder';
import type { ServeProcess } from './__fixtures__/serve-process';
import { requestFingerprint } from './idempotency-key-header';

// `Idempotency-Key` on POST /v1/turns and POST /v1/workflows through real `switchyard serve`
// processes: a retry gets the first answer and starts nothing (also from another process on the
// same PostgreSQL, and after a restart on embedded PGlite), another body with the key is refused,
// and a claim left by a process that died before answering is continued, never doubled.

const AGENT = 'ada';
const SETTINGS = { categories: {}, serve: { agents: [AGENT], port: 0, graceMs: 500 } };

/** A POST of exactly `text` (so its fingerprint is known) with an Idempotency-Key. */
function post(url: string, path: string, text: string, key: string | undefined) {
  return sendRequest(`${url}${path}`, {
    rawBody: text,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });
}

/** Every turn the daemon has recorded (one page is plenty here). */
async function recordedTurns(url: string): Promise<Array<{ id: string; status: string }>> {
  const answer = await sendRequest(`${url}/v1/turns?limit=100`, {});
  return (JSON.parse(answer.text) as { turns: Array<{ id: string; status: string }> }).turns;
}

/** The model's turns, by prompt: how many times each prompt reached it as a new turn. */
class CountingModel {
  readonly turns = new Map<string, number>();
  server: FakeResponsesServer | undefined;

  async start(folder: ServeFolder): Promise<FakeResponsesServer> {
    this.server = await folder.startFakeModel({
      script: (request) => {
        const prompt = promptOf(request);
        this.turns.set(prompt, (this.turns.get(prompt) ?? 0) + 1);
        return { text: `answered: ${prompt}` };
      },
    });
    return this.server;
  }
}

describe('switchyard serve: Idempotency-Key (embedded PGlite)', () => {
  let folder: ServeFolder;
  let config: string;
  let serve: ServeProcess | undefined;
  let url: string;
  const model = new CountingModel();
  const start = async () => {
    const fake = model.server ?? (await model.start(folder));
    ({ serve, url } = await folder.startOnFakeModel(fake, ['--config', config]));
  };

  beforeAll(async () => {
    folder = await ServeFolder.create('idempotency', 'pglite');
    config = await folder.writeConfig(SETTINGS);
    await start();
  }, 180_000);

  afterAll(() => folder?.remove(10_000), 180_000);

  const firstBody = JSON.stringify({ prompt: 'once only' });
  const firstKey = `"${randomUUID()}"`;
  let firstAnswer = '';

  it('answers a retry with the first answer and starts one turn; another body with the key is 422; a bad key is 400', async () => {
    const key = firstKey;
    const first = await post(url, '/v1/turns', firstBody, key);
    expect(first.status).toBe(202);
    firstAnswer = first.text;
    const turn = JSON.parse(first.text) as { id: string; status: string };
    expect(first.headers.get('location')).toBe(`/v1/turns/${turn.id}`);
    expect(turn.status).toBe('running');

    const retry = await post(url, '/v1/turns', firstBody, key);
    expect(retry.status).toBe(202);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    // The key unquoted is the same key.
    const unquoted = await post(url, '/v1/turns', firstBody, key.slice(1, -1));
    expect(unquoted.text).toBe(first.text);

    const other = await post(url, '/v1/turns', JSON.stringify({ prompt: 'something else' }), key);
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text)).toMatchObject({
      error: { code: 'idempotency_key_reused', fields: ['Idempotency-Key'] },
    });
    const bad = await post(url, '/v1/turns', JSON.stringify({ prompt: 'bad key' }), 'two, keys');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({
      error: { code: 'invalid_header', fields: ['Idempotency-Key'] },
    });

    // A request refused after its key was claimed (the records refuse a NUL in the prompt) lets the
    // key go: the same request again is refused the same way, not left waiting on a claim (409).
    const refusedKey = randomUUID();
    const refusedBody = JSON.stringify({ prompt: 'nul \u0000 inside' });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await post(url, '/v1/turns', refusedBody, refusedKey);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'invalid_body', fields: ['prompt'] } });
    }

    await waitFor('the turn to end', async () =>
      (await recordedTurns(url)).find((entry) => entry.id === turn.id && entry.status === 'completed'),
    );
    expect((await recordedTurns(url)).map((entry) => entry.id)).toEqual([turn.id]);
    expect(model.turns.get('once only')).toBe(1);
    expect(model.turns.has('something else')).toBe(false);
    expect(model.turns.has('bad key')).toBe(false);
  });

  it('starts one workflow for a key however often it is sent, and refuses the key with another workflow', async () => {
    const key = randomUUID();
    const body = JSON.stringify({
      name: 'once',
      tasks: [
        {
          id: 'only',
          prompt: 'TASK once',
          resultSchema: {
            type: 'object',
            properties: { summary: { type: 'string' } },
            required: ['summary'],
            additionalProperties: false,
          },
        },
      ],
    });
    const first = await post(url, '/v1/workflows', body, key);
    expect(first.status).toBe(201);
    const retry = await post(url, '/v1/workflows', body, key);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    const other = await post(url, '/v1/workflows', body.replace('"once"', '"twice"'), key);
    expect(other.status).toBe(422);
    const listed = JSON.parse((await sendRequest(`${url}/v1/workflows`, {})).text) as {
      workflows: Array<{ id: string }>;
    };
    expect(listed.workflows.map((workflow) => workflow.id)).toEqual([
      (JSON.parse(first.text) as { id: string }).id,
    ]);
  });

  it('gives the first answer after a restart, and continues a claim a killed process left, never starting a second turn', async () => {
    await serve?.terminate();
    const key = `restart-${randomUUID()}`;
    const deadTurn = `turn_${randomUUID()}`;
    const deadKeyNoTurn = `no-turn-${randomUUID()}`;
    const deadTurnNotRecorded = `turn_${randomUUID()}`;
    const bodyBytes = (prompt: string) => JSON.stringify({ prompt });
    // A process that died after claiming two keys: with one it had recorded its turn, with the
    // other it had not. (PGlite is one process's: the test's control plane closes before serve starts.)
    let controlPlane: ControlPlane | undefined = await folder.openControlPlane();
    try {
      for (const [claimKey, resourceId, prompt] of [
        [key, deadTurn, 'claimed and recorded'],
        [deadKeyNoTurn, deadTurnNotRecorded, 'claimed only'],
      ] as const) {
        const claim = await controlPlane.idempotency.claim({
          agentId: AGENT,
          operation: 'start-turn',
          key: claimKey,
          fingerprint: requestFingerprint(new TextEncoder().encode(bodyBytes(prompt))),
          resourceId,
          workerId: 'worker_dead',
        });
        expect(claim.outcome).toBe('claimed');
      }
      await controlPlane.turns.recordStart({
        id: deadTurn,
        agentId: AGENT,
        source: 'api',
        prompt: 'claimed and recorded',
        workerId: 'worker_dead',
      });
    } finally {
      await controlPlane?.close();
      controlPlane = undefined;
    }
    await start();

    // After the restart, the first test's key still gives its first answer, and starts nothing.
    const again = await post(url, '/v1/turns', firstBody, firstKey);
    expect(again.status).toBe(202);
    expect(again.text).toBe(firstAnswer);
    expect(model.turns.get('once only')).toBe(1);

    // The dead process's turn was recorded: the retry answers with it, resumed at start-up from its
    // (empty) journal, as it is now.
    const continued = await post(url, '/v1/turns', bodyBytes('claimed and recorded'), key);
    expect(continued.status).toBe(202);
    expect(JSON.parse(continued.text)).toMatchObject({ id: deadTurn });
    expect(['running', 'completed']).toContain(JSON.parse(continued.text).status);
    // Its turn was never recorded: the retry starts it, under the id the claim fixed, once.
    const started = await post(url, '/v1/turns', bodyBytes('claimed only'), deadKeyNoTurn);
    expect(started.status).toBe(202);
    expect(JSON.parse(started.text)).toMatchObject({ id: deadTurnNotRecorded, status: 'running' });
    const replay = await post(url, '/v1/turns', bodyBytes('claimed only'), deadKeyNoTurn);
    expect(replay.text).toBe(started.text);
    await waitFor('the continued turn to end', async () =>
      (await recordedTurns(url)).find(
        (entry) => entry.id === deadTurnNotRecorded && entry.status === 'completed',
      ),
    );
    expect(model.turns.get('claimed only')).toBe(1);
    await waitFor('the resumed turn to end', async () =>
      (await recordedTurns(url)).find((entry) => entry.id === deadTurn && entry.status === 'completed'),
    );
    // Resumed once, by this process: one model request for it, not one per retry.
    expect(model.turns.get('claimed and recorded')).toBe(1);
    expect(serve?.log).toMatch(/Idempotency-Key 'no-turn-[^']+' of agent ada: continuing an earlier claim/);
  });
});

describe.runIf(postgresUrl !== null)(`${postgresTitle}: Idempotency-Key across two serve processes`, () => {
  let folder: ServeFolder;
  const urls: string[] = [];
  const model = new CountingModel();

  beforeAll(async () => {
    folder = await ServeFolder.create('idempotency-pg', 'postgres');
    const config = await folder.writeConfig(SETTINGS);
    const fake = await model.start(folder);
    for (let index = 0; index < 2; index += 1) {
      urls.push((await folder.startOnFakeModel(fake, ['--config', config])).url);
    }
  }, 180_000);

  afterAll(() => folder?.remove(10_000), 180_000);

  it('starts one turn when both processes get the same key at once, and both answer a retry with it', async () => {
    const [one, two] = urls as [string, string];
    for (let round = 0; round < 5; round += 1) {
      const key = randomUUID();
      const prompt = `at once ${round}`;
      const body = JSON.stringify({ prompt });
      const answers = await Promise.all([
        post(one, '/v1/turns', body, key),
        post(two, '/v1/turns', body, key),
      ]);
      const statuses = answers.map((answer) => answer.status).toSorted();
      // Either the second claim came after the first answer (the same 202), or while it was being
      // made (409, with Retry-After).
      expect([
        [202, 202],
        [202, 409],
      ]).toContainEqual(statuses);
      const accepted = answers.find((answer) => answer.status === 202);
      for (const answer of answers) {
        if (answer.status === 409) expect(answer.headers.get('retry-after')).toBe('1');
        else expect(answer.text).toBe(accepted?.text);
      }
      // A retry to either process: the first answer.
      for (const url of urls) expect((await post(url, '/v1/turns', body, key)).text).toBe(accepted?.text);
      const id = (JSON.parse(accepted?.text ?? '{}') as { id: string }).id;
      await waitFor(`turn ${id} to end`, async () =>
        (await recordedTurns(one)).find((entry) => entry.id === id && entry.status === 'completed'),
      );
      expect(model.turns.get(prompt)).toBe(1);
    }
    expect(await recordedTurns(one)).toHaveLength(5);
  });

  it('answers 409 with Retry-After to the same key while another process is still answering it, then the first answer', async () => {
    const [one, two] = urls as [string, string];
    const databaseUrl = (folder.databaseSettings as { url: string }).url;
    // Another session holds the turns table (psql, a real client): the first request claims its key,
    // then waits to record its turn, so the key stays claimed and unanswered meanwhile.
    const psql = spawn('psql', [databaseUrl, '-X', '-q', '-v', 'ON_ERROR_STOP=1'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    const psqlExited = new Promise((resolve) => psql.once('exit', resolve));
    psql.stdin.write('BEGIN; LOCK TABLE switchyard.turns IN SHARE MODE;\n');
    const controlPlane = await folder.openControlPlane();
    try {
      await waitFor('the lock to be held', async () => {
        const { rows } = await queryControlPlane<{ held: number }>(
          controlPlane,
          `SELECT count(*)::int AS held FROM pg_locks
            WHERE relation = 'switchyard.turns'::regclass AND mode = 'ShareLock' AND granted`,
        );
        return rows[0]?.held === 1 ? true : undefined;
      });
      const key = randomUUID();
      const body = JSON.stringify({ prompt: 'while claimed' });
      const first = post(one, '/v1/turns', body, key);
      await waitFor('the key to be claimed', async () => {
        const { rows } = await queryControlPlane<{ status: string }>(
          controlPlane,
          'SELECT status FROM switchyard.idempotency_keys WHERE key = $1',
          [key],
        );
        return rows[0]?.status === 'claimed' ? true : undefined;
      });
      const during = await post(two, '/v1/turns', body, key);
      expect(during.status).toBe(409);
      expect(during.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(during.text)).toMatchObject({ error: { code: 'idempotency_key_in_use' } });

      psql.stdin.end('COMMIT;\n');
      const answered = await first;
      expect(answered.status).toBe(202);
      expect((await post(two, '/v1/turns', body, key)).text).toBe(answered.text);
      const id = (JSON.parse(answered.text) as { id: string }).id;
      await waitFor(`turn ${id} to end`, async () =>
        (await recordedTurns(two)).find((entry) => entry.id === id && entry.status === 'completed'),
      );
      expect(model.turns.get('while claimed')).toBe(1);
    } finally {
      psql.stdin.end();
      await psqlExited;
      await controlPlane.close();
    }
  });
});
