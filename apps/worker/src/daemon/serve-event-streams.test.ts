import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { promptOf } from '../__fixtures__/scripted-model';
import {
  dechunk,
  readEventStream,
  requestJson,
  serverSentEventsOf,
  waitFor,
} from './__fixtures__/http-client';
import { serveForSuite } from './__fixtures__/serve-folder';

// `switchyard serve` as a child process on a fresh PGlite folder, with the fake model streaming large
// answers in many deltas: a `/v1/events` reader that reads nothing is cut off with one overflow event
// once it is `serve.maxEventStreamBytes` behind, while a reader of the same feed gets every event; a
// finished turn's stream replays its answer as one joined delta, from memory or from the records.

const LIMIT = 256 * 1024;
const TURNS = 6;
const CHARACTERS = 2 * 1024 * 1024;
const DELTAS = 64;
/**
 * The fake model's pause between events: a 2 MiB answer streams in 32 KiB deltas over about 1.3 s
 * instead of at once, so the reader that reads keeps up even when a loaded machine does not schedule
 * it for a few hundred milliseconds (at once, such a pause let the daemon get the limit ahead of it,
 * and cut it off too).
 */
const EVENT_DELAY_MS = 20;

/**
 * How many of the turns a reader that reads nothing is certainly cut off by: the kernel takes in up
 * to the server's send buffer at its largest and the client's receive buffer as it starts (it grows
 * only as the client reads), then the stream holds the limit and a chunk in the socket's buffer.
 */
function turnsToCutOff(): number {
  const values = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  const sendBuffer = values('/proc/sys/net/ipv4/tcp_wmem')[2] ?? 0;
  const receiveBuffer = values('/proc/sys/net/ipv4/tcp_rmem')[1] ?? 0;
  const behind = sendBuffer + receiveBuffer + LIMIT + 64 * 1024;
  return Math.ceil(behind / CHARACTERS) + 1;
}

/** The answer to `BIG <n>`: 2 MiB of text of its own. */
function bigText(prompt: string): string {
  const head = `${prompt}: `;
  return head + 'x'.repeat(CHARACTERS - head.length);
}

/** The events of an SSE text, `id` included. */
function parseBlocks(text: string) {
  return serverSentEventsOf(text).flatMap(({ id, event, data }) =>
    event === undefined
      ? []
      : [
          {
            id: id === undefined ? undefined : Number(id),
            event,
            data: JSON.parse(data) as Record<string, unknown>,
          },
        ],
  );
}

/**
 * A raw `net` client of `/v1/events`: it reads the answer's head and the stream's opening comment
 * (the stream is open), then nothing more until `resume()`.
 */
async function stalledFeedReader(url: string) {
  const { hostname, port, host } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(`GET /v1/events HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  await waitFor('the stream to open', () =>
    Buffer.concat(chunks).includes(': switchyard events') ? true : undefined,
  );
  socket.pause();
  return {
    /** Reads on; resolves with the body once the daemon ended the answer. */
    resume: async () => {
      socket.resume();
      const answer = await waitFor(
        'the daemon to end the stream',
        () => {
          const read = dechunk(Buffer.concat(chunks));
          return read.complete ? read : undefined;
        },
        30_000,
      );
      socket.destroy();
      return answer.body;
    },
    close: () => socket.destroy(),
  };
}

/** A `/v1/events` reader that reads as fast as it can; `text()` is everything it read. */
function feedReader(url: string) {
  const controller = new AbortController();
  let text = '';
  const reading = (async () => {
    const response = await fetch(`${url}/v1/events`, { signal: controller.signal });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as ReadableStream<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
    }
  })().catch(() => {});
  return {
    text: () => text,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

describe('switchyard serve: event streams bounded per reader (embedded PGlite, fake model)', () => {
  const served = serveForSuite('event-streams', {
    script: (request) => {
      const prompt = promptOf(request);
      return prompt.startsWith('BIG ')
        ? { text: bigText(prompt), textChunks: DELTAS, eventDelayMs: EVENT_DELAY_MS }
        : { text: `Echo: ${prompt}` };
    },
    // Room for about two of the turns in memory: the earlier ones are read from the records.
    settings: { serve: { maxEventStreamBytes: LIMIT, maxRetainedTurnBytes: 10 * 1024 * 1024 } },
  });

  it('cuts a /v1/events reader that reads nothing off with an overflow event; a reader that reads gets all the text', async () => {
    const { url, serve } = served();
    const stalled = await stalledFeedReader(url);
    const reader = feedReader(url);
    const ids: string[] = [];
    // Read on as soon as it must have been cut off: the daemon closes a connection that does not take
    // its overflow event for long (30 s).
    const cutOffAfter = turnsToCutOff();
    expect(cutOffAfter).toBeLessThan(TURNS);
    let stalledBody: Promise<string> | undefined;
    try {
      await waitFor('the reader', () => (reader.text().includes(': switchyard events') ? true : undefined));
      for (let index = 1; index <= TURNS; index += 1) {
        const started = await requestJson(`${url}/v1/turns`, { body: { prompt: `BIG ${index}` } });
        const id = String(started.body.id);
        ids.push(id);
        // The whole `turn` event that says it completed (its output is 2 MiB too).
        const completed = `"id":"${id}","agent":"main","source":"api","title":"BIG ${index}","status":"completed"`;
        await waitFor(
          `turn ${index} to end in the feed`,
          () => {
            const text = reader.text();
            if (text.includes('event: overflow')) {
              throw new Error(`the reader that reads was cut off with an overflow event (turn ${index})`);
            }
            const at = text.indexOf(completed);
            return at !== -1 && text.indexOf('\n\n', at) !== -1 ? true : undefined;
          },
          60_000,
        );
        if (index === cutOffAfter) stalledBody = stalled.resume();
      }
    } finally {
      await reader.close();
    }
    const read = parseBlocks(reader.text());
    expect(read.some((event) => event.event === 'overflow')).toBe(false);
    for (const [index, id] of ids.entries()) {
      const deltas = read.filter(
        (event) =>
          event.event === 'turn-event' &&
          event.data.turnId === id &&
          (event.data.event as { type: string }).type === 'text-delta',
      );
      // The model's thread joins deltas it reads together (more of them when the machine is busy): the
      // text comes whole and in order, in more than one piece and at most one per delta.
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.length).toBeLessThanOrEqual(DELTAS);
      expect(deltas.map((event) => (event.data.event as { delta: string }).delta).join('')).toBe(
        bigText(`BIG ${index + 1}`),
      );
    }

    const body = await (stalledBody ?? stalled.resume());
    const events = parseBlocks(body);
    const last = events.at(-1);
    expect(last?.event).toBe('overflow');
    expect(last?.data).toMatchObject({ reason: 'reader-behind', limitBytes: LIMIT });
    // Before it: the feed's events in order, none skipped, and far from all of them.
    const numbered = events.slice(0, -1).map((event) => event.id ?? 0);
    expect(numbered.length).toBeGreaterThan(0);
    expect(numbered).toEqual(numbered.map((_, index) => (numbered[0] ?? 0) + index));
    expect(numbered.length).toBeLessThan(read.length / 2);
    // The operator's log says so once: one stream was cut off.
    expect(serve.log.match(/a reader of GET \/v1\/events fell more than \d+ bytes behind/g)).toEqual([
      `a reader of GET /v1/events fell more than ${LIMIT} bytes behind`,
    ]);

    // A finished turn still in memory (the last): its stream replays the 512 deltas joined into one,
    // 2 MiB, far over the limit, to a reader that reads, without an overflow.
    const replayed = await readEventStream(`${url}/v1/turns/${ids[TURNS - 1]}/events`);
    expect(replayed.map((event) => event.event)).toEqual([
      'turn-start',
      'model-request-start',
      'text-delta',
      'model-request-end',
      'turn-end',
    ]);
    expect(replayed[2]?.data.delta).toBe(bigText(`BIG ${TURNS}`));
    // The first, dropped from memory past serve.maxRetainedTurnBytes, is replayed from the records
    // (which keep at most 1 MiB of a log: its joined delta is left out there).
    const recorded = await readEventStream(`${url}/v1/turns/${ids[0]}/events`);
    expect(recorded.map((event) => event.event)).toEqual([
      'turn-start',
      'model-request-start',
      'model-request-end',
      'turn-end',
    ]);
  });
});
