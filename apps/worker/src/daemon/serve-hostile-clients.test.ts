import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, sendRequest, waitFor } from './__fixtures__/http-client';
import { type FakeModelServe, ServeFolder } from './__fixtures__/serve-folder';

// Clients that do not behave, through a real `switchyard serve` process: bodies sent a byte now and
// then, bodies nobody reads, bytes that are not UTF-8, more event streams than the bound.

/** A raw connection to the daemon: what it answered so far, and whether it closed. */
interface RawConnection {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
}

function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    // A reset after the daemon closed counts as closed too.
    socket.on('error', () => {});
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('switchyard serve bounds what a client that does not behave can hold (embedded PGlite)', () => {
  let served: FakeModelServe;
  let host: string;

  beforeAll(async () => {
    served = await ServeFolder.serveOnFakeModel('hostile-clients', {
      settings: {
        categories: {},
        serve: { agents: ['ada'], maxWaitingWork: 4, bodyTimeoutMs: 1500, maxEventStreams: 3, graceMs: 500 },
      },
      script: () => ({ text: 'done' }),
    });
    host = new URL(served.url).host;
  }, 180_000);

  afterAll(() => served?.folder.remove(10_000), 180_000);

  const turnCount = async () =>
    (JSON.parse((await sendRequest(`${served.url}/v1/turns`, {})).text) as { turns: unknown[] }).turns.length;

  it('answers everyone else while bodies arrive a byte at a time, and each slow body 408 once its time is up', async () => {
    // Ten requests past the bound of 4, each declaring 100 bytes and sending 6.
    const slow = await Promise.all(Array.from({ length: 10 }, () => open(served.url)));
    const started = Date.now();
    for (const connection of slow) {
      connection.socket.write(
        `POST /v1/turns HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pro`,
      );
    }
    // Time for the daemon to take them in; they count against nothing while their bodies arrive.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await sendRequest(`${served.url}/v1/session`, {})).status).toBe(200);
    const turn = await sendRequest(`${served.url}/v1/turns`, { body: { prompt: 'beside the slow ones' } });
    expect(turn.status).toBe(202);

    await Promise.all(slow.map((connection) => connection.closed));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    for (const connection of slow) {
      expect(statusOf(connection.received())).toBe(408);
      expect(connection.received()).toContain('"code":"body_timeout"');
      expect(connection.received()).toContain(
        'the request body did not all arrive within 1500 ms (serve.bodyTimeoutMs): nothing was done',
      );
    }
    expect(await turnCount()).toBe(1);
  });

  it('reads at most a little of a body nobody reads, then closes its connection, the answer sent', async () => {
    for (const path of ['/healthz', '/v1/session']) {
      const connection = await open(served.url);
      const gib = 1024 * 1024 * 1024;
      connection.socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${gib}\r\n\r\n`,
      );
      // Sends as fast as the daemon takes it, until it closes: Node would read a whole GiB to keep
      // the connection for a next request.
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let written = 0;
      let isClosed = false;
      void connection.closed.then(() => {
        isClosed = true;
      });
      while (!isClosed && written < gib) {
        const flushed = connection.socket.write(chunk);
        written += chunk.length;
        if (!flushed) {
          await Promise.race([
            new Promise((resolve) => connection.socket.once('drain', resolve)),
            connection.closed,
          ]);
        }
      }
      // The answer came, and at most 1 MiB more was read (plus what the sockets' buffers hold).
      expect(statusOf(connection.received())).toBe(200);
      expect(written).toBeLessThan(64 * 1024 * 1024);
    }
  });

  it('refuses a body that is not UTF-8, or says another charset, and stores nothing', async () => {
    const before = await turnCount();
    const bytes = Buffer.concat([Buffer.from('{"prompt":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const connection = await open(served.url);
    connection.socket.end(
      Buffer.concat([
        Buffer.from(
          `POST /v1/turns HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
        ),
        bytes,
      ]),
    );
    await connection.closed;
    expect(statusOf(connection.received())).toBe(400);
    expect(connection.received()).toContain(
      '{"error":{"code":"invalid_json","message":"the request body is not valid JSON: it is not UTF-8"}}',
    );
    const utf16 = await rawRequest(served.url, '/v1/turns', {
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body: JSON.stringify({ prompt: 'café' }),
    });
    expect(utf16.status).toBe(415);
    expect(JSON.parse(utf16.text)).toMatchObject({ error: { code: 'unsupported_media_type' } });
    // UTF-8 said in either spelling is taken.
    const said = await rawRequest(served.url, '/v1/turns', {
      headers: { 'content-type': 'application/json; charset="UTF-8"' },
      body: JSON.stringify({ prompt: 'café' }),
    });
    expect(said.status).toBe(202);
    expect(await turnCount()).toBe(before + 1);
  });

  it('answers an event stream past serve.maxEventStreams 503, and takes one again once another closes', async () => {
    const turn = JSON.parse(
      (await sendRequest(`${served.url}/v1/turns`, { body: { prompt: 'one to follow' } })).text,
    ) as { id: string };
    /** Opens `GET path` as a raw connection; resolves once its status line came. */
    const openStream = async (path: string) => {
      const connection = await open(served.url);
      connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      const status = await waitFor('an answer', () => statusOf(connection.received()) || undefined);
      return { connection, status };
    };
    const streams: RawConnection[] = [];
    for (let index = 0; index < 3; index += 1) {
      const { connection, status } = await openStream('/v1/events');
      expect(status).toBe(200);
      streams.push(connection);
    }
    const refused = await rawRequest(served.url, '/v1/events');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        code: 'overloaded',
        message:
          'this process has 3 event stream(s) open, at its bound of 3 (serve.maxEventStreams): nothing was done; open it again after 2 s, or close another',
      },
    });
    // A turn's own stream counts too.
    expect((await rawRequest(served.url, `/v1/turns/${turn.id}/events`)).status).toBe(503);

    streams[0]?.socket.destroy();
    const taken = await waitFor('a stream to be taken again', async () => {
      const attempt = await openStream('/v1/events');
      if (attempt.status === 200) return attempt.connection;
      attempt.connection.socket.destroy();
      return undefined;
    });
    for (const connection of [...streams, taken]) connection.socket.destroy();
  });
});
