import { toolCallStep } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import { readEventStream, requestJson, waitForTurnEnd } from './__fixtures__/http-client';
import { serveForSuite } from './__fixtures__/serve-folder';

// `switchyard serve` as a child process on a fresh PGlite folder: a turn's title (its prompt's first
// line) on every turn object of the API, its whole prompt on the turn's own, the time of each of its
// events, and the search of turns by text in the prompt and by a time range.

const PROMPT = '  \nFix the flaky build of notes\nthen run the tests, and write down what broke';

describe('switchyard serve: turn titles, event times and search', () => {
  const served = serveForSuite('turn-titles', {
    script: (request) => {
      if (request.functionCallOutputs.length > 0) return { text: 'Done.' };
      return toolCallStep('write_file', { path: 'notes.txt', content: promptOf(request) });
    },
    settings: {},
  });

  it('gives a turn its title on start, in the list and on its own, where its whole prompt is too', async () => {
    const { url } = served();
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: PROMPT } });
    expect(started.status).toBe(202);
    expect(started.body.title).toBe('Fix the flaky build of notes');
    const id = started.body.id as string;
    const ended = await waitForTurnEnd(url, id);
    expect(ended.body).toMatchObject({
      status: 'completed',
      title: 'Fix the flaky build of notes',
      prompt: PROMPT,
    });
    const list = await requestJson(`${url}/v1/turns`);
    const listed = (list.body.turns as Array<Record<string, unknown>>).find((turn) => turn.id === id);
    expect(listed?.title).toBe('Fix the flaky build of notes');
    expect(listed).not.toHaveProperty('prompt');
  });

  it('stamps every event of a turn with its time, in order, from its start to its end', async () => {
    const { url } = served();
    const started = await requestJson(`${url}/v1/turns`, { body: { prompt: 'time me' } });
    const id = started.body.id as string;
    const turn = (await waitForTurnEnd(url, id)).body;
    const events = await readEventStream(`${url}/v1/turns/${id}/events`);
    expect(events.map((event) => event.event)).toEqual(
      expect.arrayContaining([
        'turn-start',
        'model-request-start',
        'tool-call-start',
        'tool-call-end',
        'turn-end',
      ]),
    );
    const times = events.map((event) => Date.parse(String(event.data.at)));
    for (const time of times) expect(Number.isFinite(time)).toBe(true);
    expect(times).toEqual(times.toSorted((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(Date.parse(String(turn.createdAt)));
    expect(times.at(-1)).toBeLessThanOrEqual(Date.parse(String(turn.endedAt)));
    const end = events.find((event) => event.event === 'tool-call-end')?.data;
    const start = events.find((event) => event.event === 'tool-call-start')?.data;
    // The call's own measured duration fits between its turn's start and end (an event's `at` is
    // when the daemon took it, which a loaded event loop can put a few milliseconds late).
    expect(Date.parse(String(end?.at))).toBeGreaterThanOrEqual(Date.parse(String(start?.at)));
    expect(Number(end?.durationMs)).toBeLessThanOrEqual(
      Date.parse(String(turn.endedAt)) - Date.parse(String(turn.createdAt)),
    );
  });

  it('finds turns by text in their prompt and by a time range, and names a bad query field', async () => {
    const { url } = served();
    const marker = `zebra-${Date.now()}`;
    const started = await requestJson(`${url}/v1/turns`, {
      body: { prompt: `Feed the ${marker.toUpperCase()}` },
    });
    const id = started.body.id as string;
    await waitForTurnEnd(url, id);
    const search = async (query: string) => requestJson(`${url}/v1/turns?${query}`);
    const found = await search(`text=${encodeURIComponent(marker)}`);
    expect((found.body.turns as Array<{ id: string }>).map((turn) => turn.id)).toEqual([id]);
    expect((await search('text=no-such-words-anywhere')).body.turns).toEqual([]);
    const createdAt = String(started.body.createdAt);
    const after = await search(`createdAfter=${encodeURIComponent(createdAt)}&text=${marker}`);
    expect((after.body.turns as Array<{ id: string }>).map((turn) => turn.id)).toEqual([id]);
    const before = await search(`createdBefore=${encodeURIComponent(createdAt)}&text=${marker}`);
    expect(before.body.turns).toEqual([]);
    for (const [query, field] of [
      ['text=', 'text'],
      [`text=${'x'.repeat(201)}`, 'text'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['createdAfter=2026-12-05T00:00:00Z&createdBefore=2026-12-04T00:00:00Z', 'createdBefore'],
    ] as const) {
      const refused = await search(query);
      expect(refused.status, query).toBe(400);
      expect(JSON.stringify(refused.body), query).toContain(field);
    }
  });
});
