import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { postBurst } from './post-burst';

describe('a burst of POSTs', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends each on a connection of its own and reports answers, Retry-After and resets as they came', async () => {
    const connections = new Set<unknown>();
    server = http.createServer((request, response) => {
      connections.add(request.socket);
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => {
        const { index } = JSON.parse(text) as { index: number };
        if (index % 3 === 0) {
          response
            .writeHead(202, { 'content-type': 'application/json' })
            .end(JSON.stringify({ id: `turn_${index}` }));
        } else if (index % 3 === 1) {
          response.writeHead(503, { 'retry-after': '2' }).end('{}');
        } else {
          // No answer: the connection is reset (closed with the request unread is not enough: destroy it).
          request.socket.resetAndDestroy();
        }
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const answers = await postBurst({
      url: `http://127.0.0.1:${port}/v1/turns`,
      count: 9,
      body: (index) => ({ index }),
      headers: (index) => ({ 'idempotency-key': `key-${index}` }),
    });
    expect(connections.size).toBe(9);
    expect(answers.map((answer) => answer.status ?? answer.error)).toEqual([
      202,
      503,
      'ECONNRESET',
      202,
      503,
      'ECONNRESET',
      202,
      503,
      'ECONNRESET',
    ]);
    expect(answers[0]?.body).toBe('{"id":"turn_0"}');
    expect(answers[1]?.retryAfter).toBe('2');
    for (const answer of answers) expect(answer.ms).toBeGreaterThanOrEqual(0);
  });

  it('ends the requests still unanswered at its deadline', async () => {
    server = http.createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const answers = await postBurst({
      url: `http://127.0.0.1:${port}/`,
      count: 2,
      body: () => ({}),
      deadlineMs: 200,
    });
    expect(answers.map((answer) => answer.error)).toEqual(['deadline', 'deadline']);
  });
});
