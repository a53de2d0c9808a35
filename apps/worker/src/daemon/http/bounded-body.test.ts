import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { limitBody, readBoundedBody } from './bounded-body';
import { answerError } from './http-error';
import type { ApiBindings } from './route-builders';

const LIMIT = 1_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Sends `chunks` one by one (chunked, or with `contentLength`), `end`ing unless told not to. */
function send(
  url: string,
  options: { chunks: string[]; contentLength?: number; end?: boolean },
): Promise<Answer & { written: number }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), written });
      });
    });
    req.on('error', reject);
    const writeNext = (index: number) => {
      const chunk = options.chunks[index];
      if (chunk === undefined) {
        if (options.end !== false) req.end();
        return;
      }
      req.write(chunk, () => {
        written += chunk.length;
        setTimeout(() => writeNext(index + 1), 5);
      });
    };
    if (options.contentLength !== undefined && options.chunks.length === 0) req.flushHeaders();
    else writeNext(0);
  });
}

describe('limitBody', { timeout: 10_000 }, () => {
  let server: Server;
  let url: string;
  const seen: { text: string; bytes: number }[] = [];

  beforeAll(async () => {
    const app = new Hono<ApiBindings>();
    app.onError(answerError());
    app.use('*', limitBody(LIMIT));
    app.post('/echo', async (c) => {
      const bytes = (await c.req.arrayBuffer()).byteLength;
      const json = (await c.req.json()) as unknown;
      seen.push({ text: await c.req.text(), bytes });
      return c.json({ json, bytes });
    });
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps a chunked body under the limit as its bytes, text and JSON, exactly as sent', async () => {
    const chunks = ['{"prompt":', '"h\u00e9llo ', '\u{1F680}"}'];
    const answer = await send(url, { chunks });
    const sentBytes = Buffer.byteLength(chunks.join(''));
    expect(answer).toMatchObject({
      status: 200,
      body: { json: { prompt: 'h\u00e9llo \u{1F680}' }, bytes: sentBytes },
    });
    expect(seen.at(-1)).toEqual({ text: chunks.join(''), bytes: sentBytes });
  });

  it('answers a chunked body that goes over the limit with a 413 while the client still sends', async () => {
    const chunks = Array.from({ length: 40 }, () => 'x'.repeat(100));
    const answer = await send(url, { chunks, end: false });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ error: { code: 'body_too_large' } });
    expect(answer.headers.connection).toBe('close');
    // The answer came after the limit was passed and long before the 4,000 bytes were all sent.
    expect(answer.written).toBeGreaterThan(LIMIT);
    expect(answer.written).toBeLessThan(4_000);
  });

  it('refuses a declared Content-Length over the limit before a byte of the body is sent', async () => {
    const answer = await send(url, { chunks: [], contentLength: LIMIT + 1, end: false });
    expect(answer).toMatchObject({ status: 413, written: 0, body: { error: { code: 'body_too_large' } } });
  });

  it('reads a body of exactly the limit', async () => {
    const body = JSON.stringify({ prompt: 'y'.repeat(LIMIT - 13) });
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const answer = await send(url, { chunks: [body], contentLength: LIMIT });
    expect(answer).toMatchObject({ status: 200, body: { bytes: LIMIT } });
  });
});

describe('readBoundedBody', () => {
  it('rejects at once when the client went away before the read began', async () => {
    let outcome: string | undefined;
    const server = createServer((incoming) => {
      // As a request that waited for its share of the event loop: its client is gone by then.
      incoming.once('close', () => {
        readBoundedBody(incoming, LIMIT).then(
          () => {
            outcome = 'resolved';
          },
          (error: Error) => {
            outcome = `rejected: ${error.message}`;
          },
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const req = httpRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      req.on('error', () => {});
      req.write('{"prompt":', () => req.destroy());
      await vi.waitFor(
        () => expect(outcome).toBe('rejected: the client closed the connection before the body ended'),
        {
          timeout: 5_000,
        },
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
