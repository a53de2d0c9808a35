import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dechunk, serverSentEventsOf, waitFor } from '../__fixtures__/http-client';
import { boundedEventStream, type EventStreamWriter } from './bounded-event-stream';

// The stream over real sockets, served by @hono/node-server as the daemon serves it: a raw `net`
// client that sends its request and then reads nothing, beside an HTTP client that reads everything.

const LIMIT = 256 * 1024;
const GRACE_MS = 500;

/**
 * The most a reader that reads nothing can take into the kernel's socket buffers (the server's send
 * buffer and its own receive buffer, at their largest): what it is behind by is measured past that.
 */
function kernelBufferBytes(): number {
  const largest = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/).at(-1));
  return largest('/proc/sys/net/ipv4/tcp_wmem') + largest('/proc/sys/net/ipv4/tcp_rmem');
}

/** One event of `size` bytes in all (its text is `x`s), numbered `id`. */
function eventText(id: number, size: number): string {
  const head = `id: ${id}\nevent: tick\ndata: "`;
  const tail = '"\n\n';
  return `${head}${'x'.repeat(size - head.length - tail.length)}${tail}`;
}

/** The events of an SSE body: each `id`, `event` and raw `data`. */
function parseEvents(body: string): Array<{ id: string | undefined; event: string; data: string }> {
  return serverSentEventsOf(body).flatMap(({ id, event, data }) =>
    event === undefined ? [] : [{ id, event, data }],
  );
}

let server: Server;
let port: number;
/** The writers of the open streams, in the order they opened. */
const writers: EventStreamWriter[] = [];
/** Streams whose clean-up ran, by the position their writer has in `writers`. */
const cleanedUp = new Set<number>();
/** Streams that called `onOverflow`, by the position their writer has in `writers` (in call order). */
const overflowed: number[] = [];
/** The server side of every connection, in the order they came. */
const serverSockets: Socket[] = [];

beforeAll(async () => {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/stream', (c) => {
    let position = -1;
    return boundedEventStream(c, {
      comment: 'test stream',
      limitBytes: LIMIT,
      // `?grace=short`: the grace period under test; otherwise long enough for a test to read on.
      overflowGraceMs: c.req.query('grace') === 'short' ? GRACE_MS : 60_000,
      onOverflow: () => overflowed.push(position),
      start: (writer) => {
        position = writers.push(writer) - 1;
        return () => cleanedUp.add(position);
      },
    });
  });
  server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on('connection', (socket) => serverSockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A raw client that sends its request and reads nothing until `resume()`. */
const stalledClient = (path = '/stream') => {
  const chunks: Buffer[] = [];
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const ended = new Promise<void>((resolve) => socket.once('end', resolve));
  return {
    socket,
    /** Starts reading; resolves with everything it read once the server ended the answer. */
    resume: async () => {
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.resume();
      await waitFor(
        'the answer to end',
        () => (dechunk(Buffer.concat(chunks)).complete ? true : undefined),
        20_000,
      );
      socket.end();
      await ended.catch(() => {});
      return dechunk(Buffer.concat(chunks));
    },
  };
};

/** An HTTP client that reads everything as it comes. */
const readingClient = () => {
  let text = '';
  let ended = false;
  let waiting: { length: number; resolve(): void } | undefined;
  const request = httpRequest({ host: '127.0.0.1', port, path: '/stream' }, (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
      if (waiting !== undefined && text.length >= waiting.length) waiting.resolve();
    });
    response.on('end', () => {
      ended = true;
    });
  });
  request.end();
  return {
    text: () => text,
    ended: () => ended,
    /** Resolves once it has read at least `length` characters. */
    read: (length: number) =>
      text.length >= length
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiting = { length, resolve };
          }),
    close: () => request.destroy(),
  };
};

describe('boundedEventStream over real sockets: a reader that reads nothing', () => {
  it('cuts a reader that reads nothing off with one overflow event once it is the limit behind; a reader that reads gets every event', async () => {
    const opened = writers.length;
    const stalled = stalledClient();
    const reading = readingClient();
    await waitFor('both streams', () => (writers.length === opened + 2 ? true : undefined));
    const stalledPosition = opened;
    const size = 1024;
    const ceiling = kernelBufferBytes() + LIMIT + 1024 * 1024;
    let sent = 0;
    let sentWhenCut: number | undefined;
    // In steps the reading client keeps up with: only the one that reads nothing falls behind.
    while (sentWhenCut === undefined || sent < sentWhenCut + 64 * 1024) {
      for (let index = 0; index < 32; index += 1) {
        sent += size;
        for (const writer of writers.slice(opened)) writer.write(eventText(sent / size, size));
      }
      await reading.read(sent);
      if (sentWhenCut === undefined && cleanedUp.has(stalledPosition)) sentWhenCut = sent;
      expect(sent, 'the stream of the reader that reads nothing was never cut off').toBeLessThan(ceiling);
    }
    expect(cleanedUp.has(opened + 1)).toBe(false);
    // Told once, for the stream it cut off only.
    expect(overflowed.filter((position) => position >= opened)).toEqual([stalledPosition]);
    const read = parseEvents(reading.text());
    expect(read.map((event) => Number(event.id))).toEqual(
      Array.from({ length: sent / size }, (_, index) => index + 1),
    );

    const { body } = await stalled.resume();
    const events = parseEvents(body);
    const last = events.at(-1);
    expect(last?.event).toBe('overflow');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ reason: 'reader-behind', limitBytes: LIMIT });
    // What it got before the overflow is every event from the first, in order, with none skipped.
    const prefix = events.slice(0, -1);
    expect(prefix.map((event) => Number(event.id))).toEqual(
      Array.from({ length: prefix.length }, (_, index) => index + 1),
    );
    // It was cut off once the stream held about the limit for it, not before, and not much after.
    const dropped = (sentWhenCut ?? 0) - prefix.length * size;
    expect(dropped).toBeGreaterThan(LIMIT / 2);
    expect(dropped).toBeLessThanOrEqual(LIMIT + 64 * size);
    reading.close();
    await waitFor('the reading stream to be cleaned up', () =>
      cleanedUp.has(opened + 1) ? true : undefined,
    );
  });

  it('closes the connection of a reader that does not take the overflow event within the grace period', async () => {
    const opened = writers.length;
    const connections = serverSockets.length;
    const stalled = stalledClient('/stream?grace=short');
    await waitFor('the stream', () => (writers.length === opened + 1 ? true : undefined));
    const serverSide = serverSockets[connections] as Socket;
    let closedAt: number | undefined;
    serverSide.once('close', () => {
      closedAt = Date.now();
    });
    const writer = writers[opened] as EventStreamWriter;
    const ceiling = kernelBufferBytes() + LIMIT + 1024 * 1024;
    let sent = 0;
    while (!cleanedUp.has(opened)) {
      sent += 1024;
      writer.write(eventText(sent / 1024, 1024));
      if (sent % (64 * 1024) === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(sent).toBeLessThan(ceiling);
    }
    const cutAt = Date.now();
    expect(closedAt).toBeUndefined();
    await waitFor('the connection to close', () => closedAt, 10_000);
    expect((closedAt ?? 0) - cutAt).toBeGreaterThanOrEqual(GRACE_MS - 50);
    stalled.socket.destroy();
  });
});

describe('boundedEventStream over real sockets: readers that read', () => {
  it('stops counting an event larger than the limit once the reader took it: the events after it reach a reader that keeps up', async () => {
    const opened = writers.length;
    const reading = readingClient();
    await waitFor('the stream', () => (writers.length === opened + 1 ? true : undefined));
    const writer = writers[opened] as EventStreamWriter;
    const big = eventText(1, 2 * LIMIT);
    writer.write(big);
    await reading.read(': test stream\n\n'.length + big.length);
    // A burst: all but the first wait in the queue while the one before them is handed on.
    for (let id = 2; id <= 65; id += 1) writer.write(eventText(id, 1024));
    writer.end();
    await waitFor('the stream to end', () => (reading.ended() ? true : undefined));
    const events = parseEvents(reading.text());
    expect(events.map((event) => event.event)).not.toContain('overflow');
    expect(events.map((event) => Number(event.id))).toEqual(
      Array.from({ length: 65 }, (_, index) => index + 1),
    );
  });

  it('replays a log longer than the limit to a reader that reads, then its live events, then ends', async () => {
    const opened = writers.length;
    const reading = readingClient();
    await waitFor('the stream', () => (writers.length === opened + 1 ? true : undefined));
    const writer = writers[opened] as EventStreamWriter;
    const replayed = Array.from({ length: (3 * LIMIT) / 1024 }, (_, index) => eventText(index + 1, 1024));
    let taken = 0;
    writer.replay(
      (function* () {
        for (const text of replayed) {
          taken += 1;
          yield text;
        }
      })(),
    );
    // Made as the reader takes them, not all at once.
    expect(taken).toBeLessThan(replayed.length);
    writer.write(eventText(replayed.length + 1, 1024));
    writer.comment(': idle\n\n');
    writer.end();
    await waitFor('the stream to end', () => (reading.ended() ? true : undefined));
    const events = parseEvents(reading.text());
    expect(events.map((event) => Number(event.id))).toEqual(
      Array.from({ length: replayed.length + 1 }, (_, index) => index + 1),
    );
    expect(cleanedUp.has(opened)).toBe(true);
  });

  it('runs the clean-up once the client goes away, and takes no more writes', async () => {
    const opened = writers.length;
    const reading = readingClient();
    await waitFor('the stream', () => (writers.length === opened + 1 ? true : undefined));
    reading.close();
    await waitFor('the clean-up', () => (cleanedUp.has(opened) ? true : undefined));
    const writer = writers[opened] as EventStreamWriter;
    expect(() => writer.write(eventText(1, 1024))).not.toThrow();
  });
});
