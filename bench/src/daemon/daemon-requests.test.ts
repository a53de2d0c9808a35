import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonJson } from './daemon-requests';

let server: http.Server | undefined;

async function closeServer(): Promise<void> {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
}

afterEach(closeServer);

/** A server that resets the connection of its first `resets` requests and answers the others `{ n }`. */
async function resettingServer(resets: number): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = http.createServer((request, response) => {
    requests += 1;
    if (requests <= resets) {
      request.socket.resetAndDestroy();
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ n: requests }));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/turns/t`,
    requests: () => requests,
  };
}

describe('daemonJson', () => {
  it('sends a GET whose connection was reset again, twice at most', async () => {
    const twice = await resettingServer(2);
    await expect(daemonJson(twice.url)).resolves.toEqual({ n: 3 });
    await closeServer();
    const thrice = await resettingServer(3);
    await expect(daemonJson(thrice.url)).rejects.toThrow('fetch failed');
    expect(thrice.requests()).toBe(3);
  });

  it('never sends a POST again: it may have started a turn', async () => {
    const once = await resettingServer(1);
    await expect(daemonJson(once.url, { body: { prompt: 'hi' }, expect: 202 })).rejects.toThrow(
      'fetch failed',
    );
    expect(once.requests()).toBe(1);
  });
});
