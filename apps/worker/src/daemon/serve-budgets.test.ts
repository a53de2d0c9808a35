import { type FakeRequest, type FakeResponse, toolCallStep } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputsOf, promptOf } from '../__fixtures__/scripted-model';
import { type JsonAnswer, requestJson, waitForTurnEnd } from './__fixtures__/http-client';
import { SERVE_BACKENDS, ServeFolder } from './__fixtures__/serve-folder';

// Two real `switchyard serve` processes on one PostgreSQL database and one fake model: an agent's
// budgets are held by both together, and a model endpoint's back-off holds every turn of the process
// it was told to. The fake model's script records when each request arrived. On embedded PGlite,
// which one process holds, the same tests run with that one process in both parts.

/** Tokens each answer of the fake model reports: 250 in, 50 out. */
const USAGE = { inputTokens: 250, outputTokens: 50 };
/** How long a `BUSY` turn's answer takes: long enough to see two of them overlap if they did. */
const BUSY_MS = 1_200;

interface Arrival {
  prompt: string;
  at: number;
  /** The outputs of the calls the request carries (what the model reads). */
  outputs: string[];
}

/** The fake model: a behaviour per prompt prefix, each request's arrival recorded. */
function script(arrivals: Arrival[]) {
  let rateLimited = false;
  return (request: FakeRequest): FakeResponse | { httpStatus: number; headers: Record<string, string> } => {
    const prompt = promptOf(request);
    const outputs = outputsOf(request);
    arrivals.push({ prompt, at: Date.now(), outputs });
    if (prompt.startsWith('SPEND')) return { text: `spent on ${prompt}`, usage: USAGE };
    if (prompt.startsWith('LOOP')) {
      return {
        text: `thinking ${request.functionCallOutputs.length + 1}`,
        functionCalls: [{ name: 'update_todos', arguments: { items: [] } }],
        usage: USAGE,
      } as FakeResponse;
    }
    if (prompt.startsWith('BUSY')) return { text: `done ${prompt}`, delayMs: BUSY_MS };
    if (prompt.startsWith('PLAN')) {
      if (outputs.length > 0) return { text: `the tool said: ${outputs.join(' | ')}` };
      const name = prompt.slice('PLAN '.length);
      return toolCallStep('create_schedule', { name, prompt: `check ${name}`, cron: '0 9 * * *' });
    }
    if (prompt.startsWith('RATE') && !rateLimited) {
      rateLimited = true;
      return { httpStatus: 429, headers: { 'retry-after': '2' } };
    }
    return { text: `answer to ${prompt}` };
  };
}

const SETTINGS = {
  categories: { schedule: {} },
  model: { name: 'fake-model', maxRetries: 2 },
  serve: {
    agents: ['spender', 'looper', 'busy', 'planner', 'steady'],
    port: 0,
    heartbeatMs: 200,
    staleTurnMs: 5_000,
    pollSeconds: 0.5,
    tickMs: 60_000,
    graceMs: 500,
  },
  agents: {
    spender: { budgets: { tokensPerDay: 1_000 } },
    looper: { budgets: { tokensPerTurn: 500 } },
    busy: { budgets: { turnsAtOnce: 1 } },
    planner: { budgets: { schedulesPerHour: 1 } },
  },
};

for (const backend of SERVE_BACKENDS) {
  const processes = backend.database === 'postgres' ? 'two serve processes' : 'one serve process';
  describe.runIf(backend.runs)(`${backend.title}: agent budgets across ${processes}`, () => {
    let folder: ServeFolder;
    const arrivals: Arrival[] = [];
    let first = '';
    let second = '';

    beforeAll(async () => {
      folder = await ServeFolder.create(`budgets-${backend.database}`, backend.database);
      const fake = await folder.startFakeModel({ script: script(arrivals) });
      const config = await folder.writeConfig(SETTINGS);
      const environment = { OPENAI_API_KEY: 'test' };
      const count = backend.database === 'postgres' ? 2 : 1;
      const started = await Promise.all(
        Array.from({ length: count }, () => folder.startOnFakeModel(fake, ['--config', config], environment)),
      );
      first = started[0]?.url ?? '';
      second = started.at(-1)?.url ?? '';
    }, 120_000);

    afterAll(async () => {
      await folder?.remove(10_000);
    });

    /** Starts a turn on `url` and waits for its end. */
    async function turn(url: string, agent: string, prompt: string): Promise<JsonAnswer['body']> {
      const started = await requestJson(`${url}/v1/turns`, { method: 'POST', body: { agent, prompt } });
      expect(started.status).toBe(202);
      return (await waitForTurnEnd(url, String(started.body.id))).body;
    }

    it("holds one agent's daily token budget across every process on the database", async () => {
      // 300 tokens a turn against 1000 a day: the fourth turn starts at 900 and may run, the fifth
      // starts at 1200 and ends before any request, whichever process runs it.
      for (const [index, url] of [first, second, first, second].entries()) {
        expect(await turn(url, 'spender', `SPEND ${index}`)).toMatchObject({ status: 'completed' });
      }
      const refused = await turn(first, 'spender', 'SPEND 4');
      expect(refused).toMatchObject({
        status: 'budget-exceeded',
        limitedBy: ['tokensPerDay'],
        iterations: 0,
      });
      expect(String(refused.error)).toMatch(
        /spent 1200 tokens in the last 24 hours, its limit is 1000 \(tokensPerDay\)/,
      );
      expect(arrivals.filter((arrival) => arrival.prompt === 'SPEND 4')).toHaveLength(0);
      // The other process reads the same spend, and so does the record of the refused turn.
      const usage = await requestJson(`${second}/v1/agents/spender/usage`);
      expect(usage.body).toMatchObject({ tokensLastDay: { used: 1200, limit: 1000 } });
    });

    it("ends a turn past tokensPerTurn budget-exceeded, the model's last output kept", async () => {
      const ended = await turn(second, 'looper', 'LOOP once');
      expect(ended).toMatchObject({
        status: 'budget-exceeded',
        output: 'thinking 2',
        iterations: 2,
        limitedBy: ['tokensPerTurn'],
      });
      expect(String(ended.error)).toMatch(/the turn spent 600 tokens, its agent's limit per turn is 500/);
    });

    it('runs turns beyond turnsAtOnce one at a time across every process: they wait, then run', async () => {
      const prompts = ['BUSY a', 'BUSY b', 'BUSY c'];
      const started = await Promise.all(
        prompts.map((prompt, index) =>
          requestJson(`${index === 1 ? second : first}/v1/turns`, {
            method: 'POST',
            body: { agent: 'busy', prompt },
          }),
        ),
      );
      const ends = await Promise.all(
        started.map((answer, index) => waitForTurnEnd(index === 1 ? second : first, String(answer.body.id))),
      );
      expect(ends.map((end) => end.body.status)).toEqual(['completed', 'completed', 'completed']);
      // Never two at once: each request came after the one before had been answered.
      const times = arrivals
        .filter((arrival) => arrival.prompt.startsWith('BUSY'))
        .map((arrival) => arrival.at)
        .toSorted((a, b) => a - b);
      expect(times).toHaveLength(3);
      for (let index = 1; index < times.length; index += 1) {
        expect((times[index] as number) - (times[index - 1] as number)).toBeGreaterThanOrEqual(BUSY_MS - 50);
      }
      // Two of them waited for a slot, and their records say so.
      const waited = ends.filter((end) =>
        (end.body.limitedBy as string[] | undefined)?.includes('turnsAtOnce'),
      );
      expect(waited.length).toBeGreaterThanOrEqual(2);
    });

    it('refuses a create_schedule beyond the hourly limit with a reason the model reads', async () => {
      const created = await turn(first, 'planner', 'PLAN one');
      expect(String(created.output)).toMatch(/the tool said: Created schedule/);
      const refused = await turn(second, 'planner', 'PLAN two');
      expect(refused.status).toBe('completed');
      expect(String(refused.output)).toMatch(
        /limit of 1 schedules created per hour \(schedulesPerHour\): 1 in the last hour; try again in \d+ s/,
      );
    });

    it('delays every turn of the process told 429 with Retry-After: 2, sending nothing to the endpoint in between', async () => {
      const before = arrivals.length;
      const told = requestJson(`${first}/v1/turns`, {
        method: 'POST',
        body: { agent: 'steady', prompt: 'RATE told' },
      });
      const firstTold = await waitForArrival(arrivals, before, 'RATE told');
      // Two more turns of the same process start once the 429 is on its way back.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const others = await Promise.all(
        ['RATE other-1', 'RATE other-2'].map((prompt) =>
          requestJson(`${first}/v1/turns`, { method: 'POST', body: { agent: 'steady', prompt } }),
        ),
      );
      const ids = [String((await told).body.id), ...others.map((answer) => String(answer.body.id))];
      const ends = await Promise.all(ids.map((id) => waitForTurnEnd(first, id)));
      expect(ends.map((end) => end.body.status)).toEqual(['completed', 'completed', 'completed']);
      const later = arrivals.slice(before).filter((arrival) => arrival.prompt.startsWith('RATE'));
      expect(later.map((arrival) => arrival.prompt).toSorted()).toEqual([
        'RATE other-1',
        'RATE other-2',
        'RATE told',
        'RATE told',
      ]);
      // Nothing was sent between the 429 and its Retry-After; then every turn went, about 2 s late.
      for (const arrival of later.filter((entry) => entry !== firstTold)) {
        expect(arrival.at - firstTold.at).toBeGreaterThanOrEqual(1_950);
        expect(arrival.at - firstTold.at).toBeLessThan(15_000);
      }
    });
  });
}

/** Waits for the first request of `prompt` after `from`; returns its arrival. */
async function waitForArrival(arrivals: Arrival[], from: number, prompt: string): Promise<Arrival> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const found = arrivals.slice(from).find((arrival) => arrival.prompt === prompt);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no request of ${prompt}`);
}
