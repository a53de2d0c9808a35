import { type AgentRunResult, runAgentLoop } from '@switchyard/core';
import { type FakeRequest, startFakeResponsesServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { resolveModelEndpoint } from '../config/resolve-model-endpoint';
import { waitFor } from '../daemon/__fixtures__/http-client';
import { EndpointBackoff, endpointBackoffOf, MAX_BACKOFF_MS, retryAfterMsOf } from './endpoint-backoff';
import { createWorkerModel } from './worker-model';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("a model endpoint's back-off, shared by the process", () => {
  it(
    'holds back every turn to the endpoint for its Retry-After: nothing is sent in between',
    { timeout: 30_000 },
    async () => {
      // When each request arrived, by its prompt.
      const arrivals: Array<{ prompt: string; at: number }> = [];
      let told = false;
      const server = await startFakeResponsesServer({
        script: (request: FakeRequest) => {
          const prompt = JSON.stringify(request.body.input).includes('first') ? 'first' : 'second';
          arrivals.push({ prompt, at: Date.now() });
          if (!told) {
            told = true;
            return { httpStatus: 429, headers: { 'retry-after': '3' } };
          }
          return { text: `answer to ${prompt}` };
        },
      });
      closers.push(() => server.close());
      const config = parseConfig(
        { model: { name: 'fake-model', baseURL: server.baseURL, maxRetries: 2 } },
        { env: { OPENAI_API_KEY: 'test' } },
      );
      // Two models, as two turns' daemons would make them: one back-off, the endpoint's.
      const turn = (prompt: string) =>
        runAgentLoop({
          model: createWorkerModel(config.model, resolveModelEndpoint(config)),
          tools: [],
          input: prompt,
        }).result();
      const first = turn('first');
      await waitFor('the first request', () => (arrivals.length > 0 ? true : undefined));
      const toldAt = arrivals[0]?.at as number;
      // The second turn starts once the 429 has reached this process (before, nobody knew), or half a
      // second after it was sent, whichever comes first: well inside the three seconds it asked for.
      await waitFor('the 429 to be answered', () =>
        endpointBackoffOf(server.baseURL).remainingMs() > 0 || Date.now() - toldAt >= 500 ? true : undefined,
      );
      const second = turn('second');
      const results: AgentRunResult[] = await Promise.all([first, second]);
      expect(results.map((result) => result.status)).toEqual(['completed', 'completed']);
      expect(arrivals.map((arrival) => arrival.prompt).toSorted()).toEqual(['first', 'first', 'second']);
      // Nothing reached the endpoint during its back-off: the second turn's request (asked at most half
      // a second after the 429) and the first's retry both came three seconds later.
      for (const arrival of arrivals.slice(1)) expect(arrival.at - toldAt).toBeGreaterThanOrEqual(2_950);
    },
  );

  it('reads Retry-After in milliseconds, seconds or as a date, capped, with a default for none', () => {
    expect(retryAfterMsOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMsOf(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMsOf(new Headers({ 'retry-after': '86400' }))).toBe(MAX_BACKOFF_MS);
    const inFive = new Date(Date.now() + 5_000).toUTCString();
    expect(retryAfterMsOf(new Headers({ 'retry-after': inFive }))).toBeGreaterThan(3_000);
    expect(retryAfterMsOf(new Headers())).toBe(1_000);
  });

  it('only moves later, ignores other answers, and lets an aborted wait go with its reason', async () => {
    const backoff = new EndpointBackoff('http://127.0.0.1:1/v1');
    backoff.observe(200, new Headers());
    backoff.observe(400, new Headers({ 'retry-after': '30' }));
    expect(backoff.remainingMs()).toBe(0);
    backoff.observe(503, new Headers({ 'retry-after': '30' }));
    backoff.observe(429, new Headers({ 'retry-after': '1' }));
    expect(backoff.remainingMs()).toBeGreaterThan(29_000);
    const controller = new AbortController();
    const waiting = backoff.ready(controller.signal);
    controller.abort(new Error('turn cancelled'));
    await expect(waiting).rejects.toThrow('turn cancelled');
  });
});
