import { type FakeResponsesServer, startFakeResponsesServer } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeServerModel, promptOf } from '../__fixtures__/scripted-model';
import { waitFor } from './__fixtures__/http-client';
import { type DaemonTurnEvent, DaemonTurns } from './daemon-turns';

// The turn registry in memory (no records), over the real `openai` SDK against the fake Responses
// server: what it keeps of finished turns, and how a follower sees a running one.

/** The answer of `TEXT <characters> <deltas> [<ms between events>]`: `characters` of text in `deltas` deltas. */
function answerOf(prompt: string): { text: string; textChunks: number; eventDelayMs: number } {
  const [, characters, deltas, delay] = prompt.split(' ');
  const text = Array.from({ length: Number(characters) }, (_, index) =>
    String.fromCharCode(97 + (index % 26)),
  ).join('');
  return { text, textChunks: Number(deltas), eventDelayMs: Number(delay ?? 0) };
}

describe('DaemonTurns (fake Responses server over HTTP, no records)', () => {
  let server: FakeResponsesServer;

  beforeAll(async () => {
    server = await startFakeResponsesServer({ script: (request) => answerOf(promptOf(request)) });
  });

  afterAll(async () => {
    await server?.close();
  });

  const runTurn = async (turns: DaemonTurns, prompt: string) => {
    const { id, done } = await turns.start({ agentId: 'main', prompt, source: 'api' });
    expect(await done).toMatchObject({ status: 'completed' });
    return id;
  };

  describe('finished turns kept in memory', () => {
    it('keeps them under maxRetainedTurnBytes, dropping the oldest first, each with its text deltas joined', async () => {
      const budget = 100_000;
      const turns = new DaemonTurns({ model: fakeServerModel(server.baseURL), maxRetainedTurnBytes: budget });
      const ids: string[] = [];
      // Each about 41 KB: 20,000 characters of output, and the same text in its log.
      for (let index = 0; index < 5; index += 1) {
        ids.push(await runTurn(turns, 'TEXT 20000 500'));
        expect(turns.retained().bytes).toBeLessThanOrEqual(budget);
      }
      expect(turns.retained().turns).toBe(2);
      expect(ids.map((id) => turns.get(id) !== undefined)).toEqual([false, false, false, true, true]);
      // The 500 deltas of the answer are one event in what is kept.
      const past = turns.follow(ids[4] as string, () => {})?.past ?? [];
      expect(past.map((event) => event.type)).toEqual([
        'turn-start',
        'model-request-start',
        'text-delta',
        'model-request-end',
        'turn-end',
      ]);
      const delta = past.find((event) => event.type === 'text-delta');
      expect(delta?.type === 'text-delta' ? delta.delta : '').toBe(answerOf('TEXT 20000 500').text);
    });

    it('keeps at most maxRetainedTurns whatever their size', async () => {
      const turns = new DaemonTurns({ model: fakeServerModel(server.baseURL), maxRetainedTurns: 2 });
      const ids = [
        await runTurn(turns, 'TEXT 10 2'),
        await runTurn(turns, 'TEXT 10 2'),
        await runTurn(turns, 'TEXT 10 2'),
      ];
      expect(ids.map((id) => turns.get(id) !== undefined)).toEqual([false, true, true]);
      expect(turns.retained().turns).toBe(2);
    });
  });

  describe('following a turn', () => {
    it('gives a follower the log so far, deltas joined, then every later event live: together the whole text', async () => {
      const turns = new DaemonTurns({ model: fakeServerModel(server.baseURL) });
      let deltas = 0;
      const stop = turns.observe((_, event) => {
        if (event?.type === 'text-delta') deltas += 1;
      });
      const prompt = 'TEXT 3000 300 5';
      const { id, done } = await turns.start({ agentId: 'main', prompt, source: 'api' });
      await waitFor('some of the text', () => (deltas >= 20 ? true : undefined), 30_000);
      const live: DaemonTurnEvent[] = [];
      const followed = turns.follow(id, (event) => live.push(event));
      expect(followed?.live).toBe(true);
      await done;
      stop();
      const past = followed?.past ?? [];
      const pastText = past.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
      expect(pastText).toHaveLength(1);
      const liveText = live.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
      expect(liveText.length).toBeGreaterThan(1);
      expect([...pastText, ...liveText].join('')).toBe(answerOf(prompt).text);
      expect(live.at(-1)?.type).toBe('turn-end');
      // Once it ended, a follower gets the whole log and is not live.
      expect(turns.follow(id, () => {})).toMatchObject({ live: false });
    });
  });
});
