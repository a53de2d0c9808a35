import type { ServerResponse } from 'node:http';
import { collectGarbageOften } from '@switchyard/test-support';
import { createTestToolContext } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../__fixtures__/local-server';
import { createWebSearchTool, type WebSearchDetails } from '../web-search-tool';
import { parseRetryAfter } from './request-json';
import type { WebSearchProfile } from './search-types';

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Provider = WebSearchProfile['provider'];

const displayNames: Record<Provider, string> = {
  brave: 'Brave Search',
  tavily: 'Tavily',
  searxng: 'SearXNG',
};

function profileFor(provider: Provider, origin: string, timeoutMs?: number): WebSearchProfile {
  const shared = { baseUrl: origin, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  if (provider === 'searxng') return { provider, ...shared };
  return { provider, apiKey: 'test-key', ...shared };
}

// Each provider's documented error body shape, carrying `message`.
function errorBody(provider: Provider, message: string): string {
  if (provider === 'brave')
    return JSON.stringify({ type: 'ErrorResponse', error: { status: 400, detail: message } });
  if (provider === 'tavily') return JSON.stringify({ detail: { error: message } });
  return JSON.stringify({ error: message });
}

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

// Writes `chunk` until the client goes away: a body that never ends.
function streamForever(response: ServerResponse, status: number, chunk: string): void {
  let open = true;
  response.on('close', () => {
    open = false;
  });
  response.writeHead(status, { 'content-type': 'application/json' });
  response.write('{"results": [');
  const pump = () => {
    while (open && response.write(chunk)) {}
    if (open) response.once('drain', pump);
  };
  pump();
}

const item = `${JSON.stringify({ title: 'x', url: 'https://example.com/', content: 'y'.repeat(900) })},`;

interface FailureCase {
  name: string;
  respond: (response: ServerResponse, provider: Provider) => void;
  timeoutMs?: number;
  expected: Partial<WebSearchDetails>;
  contains: (provider: Provider) => string[];
  lacks?: (provider: Provider) => string[];
}

const cases: FailureCase[] = [
  {
    name: '401 is unauthorized, with the provider detail',
    respond: (response, provider) => send(response, 401, errorBody(provider, 'The API key is invalid.')),
    expected: { failure: 'unauthorized', status: 401 },
    contains: () => ['HTTP 401', 'The API key is invalid.', 'check the search profile'],
  },
  {
    name: '403 is unauthorized; SearXNG also names the json format',
    respond: (response) => send(response, 403, '<html>Forbidden</html>', { 'content-type': 'text/html' }),
    expected: { failure: 'unauthorized', status: 403 },
    contains: (provider) => ['HTTP 403', ...(provider === 'searxng' ? ['"json" in search.formats'] : [])],
    lacks: (provider) => ['<html>', ...(provider === 'searxng' ? [] : ['search.formats'])],
  },
  {
    name: '429 is rate-limited with the Retry-After wait',
    respond: (response, provider) =>
      send(response, 429, errorBody(provider, 'slow down'), { 'retry-after': '17' }),
    expected: { failure: 'rate-limited', status: 429, retryAfterSeconds: 17 },
    contains: () => ['HTTP 429', 'retry after 17 seconds'],
  },
  {
    name: "429 reads Brave's X-RateLimit-Reset when there is no Retry-After",
    respond: (response) => send(response, 429, '{}', { 'x-ratelimit-reset': '3, 1419704' }),
    expected: { failure: 'rate-limited', status: 429, retryAfterSeconds: 3 },
    contains: () => ['retry after 3 seconds'],
  },
  {
    name: '429 with a Retry-After that is not a wait says try again later, not 0 seconds',
    respond: (response) => send(response, 429, '{}', { 'retry-after': '-5' }),
    expected: { failure: 'rate-limited', status: 429 },
    contains: () => ['try again later'],
    lacks: () => ['retry after'],
  },
  {
    name: '503 is unavailable and passes on its Retry-After',
    respond: (response) => send(response, 503, '', { 'retry-after': '30' }),
    expected: { failure: 'unavailable', status: 503, retryAfterSeconds: 30 },
    contains: () => ['HTTP 503', 'retry after 30 seconds'],
  },
  {
    name: '500 with an HTML page is unavailable without echoing the page',
    respond: (response) =>
      send(response, 500, '<html><b>Internal error</b></html>', { 'content-type': 'text/html' }),
    expected: { failure: 'unavailable', status: 500 },
    contains: () => ['HTTP 500', 'try again later'],
    lacks: () => ['<html>', 'Internal error'],
  },
  {
    name: 'other 4xx is rejected, with the provider detail',
    respond: (response, provider) => send(response, 422, errorBody(provider, 'query is too long')),
    expected: { failure: 'rejected', status: 422 },
    contains: () => ['rejected the request (HTTP 422): query is too long'],
  },
  {
    name: 'a 200 body that is not JSON is malformed',
    respond: (response) => send(response, 200, '{"results": ['),
    expected: { failure: 'malformed', status: 200 },
    contains: () => ['not JSON'],
  },
  {
    name: 'a 200 body that never ends is stopped at 4 MB',
    respond: (response) => streamForever(response, 200, item.repeat(64)),
    expected: { failure: 'malformed', status: 200 },
    contains: () => ['larger than 4 MB'],
  },
  {
    name: 'a 200 that declares more than 4 MB is refused before its body is read',
    respond: (response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(5 * 1024 * 1024),
      });
      response.write('{"results": [');
    },
    expected: { failure: 'malformed', status: 200 },
    contains: () => ['larger than 4 MB'],
  },
  {
    name: 'an error whose body never ends is still reported by its status',
    respond: (response) => streamForever(response, 502, item.repeat(64)),
    expected: { failure: 'unavailable', status: 502 },
    contains: () => ['HTTP 502'],
  },
  {
    name: 'a dropped connection is a network error',
    respond: (response) => response.socket?.destroy(),
    expected: { failure: 'network' },
    contains: (provider) => [`could not reach ${displayNames[provider]}`],
  },
  {
    name: 'no answer is a timeout',
    respond: () => {},
    timeoutMs: 300,
    expected: { failure: 'timeout' },
    contains: () => ['did not answer within 300 ms'],
  },
  {
    name: 'a body that stalls halfway is a timeout',
    respond: (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"results": [');
    },
    timeoutMs: 300,
    expected: { failure: 'timeout' },
    contains: () => ['did not answer within 300 ms'],
  },
];

const snippetField: Record<Provider, string> = {
  brave: 'description',
  tavily: 'content',
  searxng: 'content',
};
const providers: Provider[] = ['brave', 'tavily', 'searxng'];

describe.each(providers)('provider HTTP failures (%s)', (provider) => {
  it.each(cases)('$name', async ({ respond, timeoutMs, expected, contains, lacks }) => {
    const server = await startLocalServer((_request, response) => respond(response, provider));
    servers.push(server);
    const tool = createWebSearchTool(profileFor(provider, server.origin, timeoutMs));
    const result = await tool.execute({ query: 'q' }, createTestToolContext());
    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({ isError: true, details: { provider, query: 'q', ...expected } });
    if (expected.retryAfterSeconds === undefined)
      expect(result.details).not.toHaveProperty('retryAfterSeconds');
    if (expected.status === undefined) expect(result.details).not.toHaveProperty('status');
    expect(result.content).toMatch(
      new RegExp(`^web_search failed: (could not reach )?${displayNames[provider]}`),
    );
    for (const text of contains(provider)) expect(result.content).toContain(text);
    for (const text of lacks?.(provider) ?? []) expect(result.content).not.toContain(text);
  });

  it('reads a large answer in many chunks with multi-byte characters intact', async () => {
    const snippet = 'Zürich € 😀 '.repeat(200).trim();
    const items = Array.from({ length: 600 }, (_, index) => ({
      title: `r${index}`,
      url: `https://example.com/${index}`,
      [snippetField[provider]]: snippet,
    }));
    const answer = provider === 'brave' ? { type: 'search', web: { results: items } } : { results: items };
    const server = await startLocalServer((_request, response) =>
      send(response, 200, JSON.stringify(answer)),
    );
    servers.push(server);
    const tool = createWebSearchTool(profileFor(provider, server.origin));
    const result = await tool.execute({ query: 'q', count: 20 }, createTestToolContext());
    expect(result.isError).toBeUndefined();
    expect(result.details?.results).toHaveLength(20);
    expect(result.details?.results?.every((found) => found.snippet === snippet)).toBe(true);
  });

  it('stops a provider that never answers at the timeout under frequent garbage collection', async () => {
    // Node 20 collects an AbortSignal.timeout that only an AbortSignal.any refers to before it fires;
    // the server gives up after 3 s, so a limit that never fired shows as a network failure.
    const server = await startLocalServer((_request, response) => {
      setTimeout(() => response.destroy(), 3_000);
    });
    servers.push(server);
    const tool = createWebSearchTool(profileFor(provider, server.origin, 300));
    const collections = collectGarbageOften();
    try {
      const result = await tool.execute({ query: 'q' }, createTestToolContext());
      expect(result).toMatchObject({ isError: true, details: { failure: 'timeout' } });
      expect(result.content).toContain('did not answer within 300 ms');
    } finally {
      collections.stop();
    }
    expect(collections.count).toBeGreaterThan(0);
  });

  it('rethrows the turn abort reason instead of reporting a failure', async () => {
    const context = createTestToolContext();
    const reason = new Error('turn cancelled');
    const server = await startLocalServer(() => context.controller.abort(reason));
    servers.push(server);
    const tool = createWebSearchTool(profileFor(provider, server.origin));
    await expect(tool.execute({ query: 'q' }, context)).rejects.toBe(reason);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['17', 17],
    [' 0 ', 0],
    ['1.5', 2],
    ['Thu, 01 Jan 2026 00:02:00 GMT', 120],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['-5', undefined],
    ['1.5.3', undefined],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %o as %o', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});
