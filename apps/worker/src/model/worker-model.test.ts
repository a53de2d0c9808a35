import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelRequestError } from '@switchyard/core';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, MODEL_SETTINGS } from '../__fixtures__/model-settings';
import { createWorkerModel } from './worker-model';

const closers = closedAfterEach();
const SETTINGS = MODEL_SETTINGS;

const request = {
  items: [{ role: 'user' as const, content: 'hello' }],
  pendingFrom: 0,
  previousResponseId: undefined,
  instructions: undefined,
  tools: [],
  signal: undefined,
  onTextDelta: () => {},
};

/** A server that answers every request with `status` to `location`, counting what it was sent. */
async function redirectingServer(status: number, location: string) {
  const server = http.createServer((incoming, answer) => {
    incoming.resume();
    answer.writeHead(status, { location }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('createWorkerModel: the configured endpoint, called as configured', () => {
  it('fails a request its endpoint redirects, naming the redirect, and never follows it', async () => {
    const target = await startFakeResponsesServer({ script: () => ({ text: 'followed' }) });
    closers.push(() => target.close());
    for (const status of [301, 307, 308]) {
      const baseURL = await redirectingServer(status, `${target.url}/responses`);
      const model = createWorkerModel(SETTINGS, { model: 'fake-model', baseURL, apiKey: 'test' });
      const failure = await model.respond(request).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ModelRequestError.isInstance(failure), `HTTP ${status}`).toBe(true);
      expect((failure as Error).message).toContain('unexpected redirect');
      expect((failure as Error).message).toContain(baseURL);
    }
    expect(target.requests).toHaveLength(0);
  });

  it('names the root cause of an endpoint that cannot be reached', async () => {
    const closed = await redirectingServer(200, '');
    const baseURL = closed;
    await closers.pop()?.();
    const model = createWorkerModel(SETTINGS, { model: 'fake-model', baseURL, apiKey: 'test' });
    await expect(model.respond(request)).rejects.toThrow(/fetch failed: connect ECONNREFUSED/);
  });

  it('answers from an endpoint that does not redirect', async () => {
    const server = await startFakeResponsesServer({ script: () => ({ text: 'direct' }) });
    closers.push(() => server.close());
    const model = createWorkerModel(SETTINGS, { model: 'fake-model', baseURL: server.url, apiKey: 'test' });
    const response = await model.respond(request);
    expect(response.output).toEqual([expect.objectContaining({ type: 'message' })]);
    expect(server.requests).toHaveLength(1);
  });
});
