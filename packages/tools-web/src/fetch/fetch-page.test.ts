import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { collectGarbageOften } from '@switchyard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../__fixtures__/local-server';
import { loopbackOnlyConnector } from '../__fixtures__/loopback-only-connector';
import { compileGuardPolicy, type GuardOptions, type LookupFunction } from '../guard/guard-policy';
import { ConnectRefusedError, createGuardedConnector } from '../guard/guarded-connector';
import { FetchFailure } from './fetch-failure';
import { type FetchLimits, fetchPage } from './fetch-page';

const limits: FetchLimits = {
  timeoutMs: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'test-agent',
};

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Parameters<typeof startLocalServer>[0]): Promise<LocalServer> {
  const server = await startLocalServer(handler);
  servers.push(server);
  return server;
}

function loopbackLookup(): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (hostname: string) => {
      calls.push(hostname);
      return [{ address: '127.0.0.1', family: 4 as const }];
    },
    { calls },
  );
}

async function fetchWith(url: string, guard: GuardOptions, extra: Partial<FetchLimits> = {}) {
  const recorder = loopbackOnlyConnector();
  const outcome = await fetchPage(url, {
    policy: compileGuardPolicy(guard),
    limits: { ...limits, ...extra },
    signal: new AbortController().signal,
    connector: recorder.connector,
  }).then(
    // The body comes as bytes; decoding it is the renderer's work. Decoded here for the assertions.
    (page) => ({ ...page, text: new TextDecoder(page.charset ?? 'utf-8').decode(page.body) }),
    (error: unknown) => error,
  );
  return { outcome, attempts: recorder.attempts };
}

function expectFailure(outcome: unknown, kind: FetchFailure['kind']): FetchFailure {
  expect(FetchFailure.isInstance(outcome)).toBe(true);
  expect((outcome as FetchFailure).kind).toBe(kind);
  return outcome as FetchFailure;
}

describe('connect-time guard', () => {
  it('connects to the checked address and keeps the original Host', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('hello');
    });
    const lookup = loopbackLookup();
    const { outcome, attempts } = await fetchWith(`http://page.test:${server.port}/hi`, {
      lookup,
      allowedTargets: [server.target],
    });
    expect(outcome).toMatchObject({ text: 'hello', kind: 'text', status: 200, bytes: 5 });
    // Shared memory: a render thread gets the body without a copy on the event loop.
    expect((outcome as { body: Uint8Array }).body.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(attempts).toEqual([`127.0.0.1:${server.port}`]);
    expect(server.requests[0]?.headers.host).toBe(`page.test:${server.port}`);
    // Checked once for the URL, once again where the connection is made.
    expect(lookup.calls).toEqual(['page.test', 'page.test']);
  });

  it('refuses a DNS answer that changes to a private address between check and connect', async () => {
    const server = await serve((_request, response) => {
      response.end('must not be reached');
    });
    const answers = ['127.0.0.1', '10.0.0.1'];
    const lookup: LookupFunction = async () => [{ address: answers.shift() ?? '10.0.0.1', family: 4 }];
    const { outcome, attempts } = await fetchWith(`http://rebind.test:${server.port}/`, {
      lookup,
      allowedTargets: [server.target],
    });
    const failure = expectFailure(outcome, 'refused');
    expect(failure.message).toContain('refused at connect');
    expect(failure.message).toContain('10.0.0.1');
    expect(attempts).toEqual([]);
    expect(server.requests).toEqual([]);
    expect(server.connections()).toBe(0);
  });

  it('refuses IP literals in the connector itself, before the base connector runs', async () => {
    const recorder = loopbackOnlyConnector();
    const connect = createGuardedConnector(compileGuardPolicy({}), recorder.connector);
    for (const hostname of ['10.0.0.1', '169.254.169.254', '::ffff:7f00:1', 'fd00:ec2::254']) {
      const error = await new Promise<unknown>((resolve) =>
        connect({ hostname, host: hostname, protocol: 'http:', port: '80' }, (...args) => resolve(args[0])),
      );
      expect(ConnectRefusedError.isInstance(error)).toBe(true);
    }
    expect(recorder.attempts).toEqual([]);
  });

  it('opens a fresh connection for every fetch, so no checked socket is reused by another', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive' });
      response.end('ok');
    });
    for (let index = 0; index < 2; index += 1) {
      const { outcome } = await fetchWith(`${server.origin}/`, { allowedTargets: [server.target] });
      expect(outcome).toMatchObject({ text: 'ok' });
    }
    expect(server.connections()).toBe(2);
  });
});

describe('redirects', () => {
  it('stops a redirect to a non-allowed local server at the hop, which sees no request', async () => {
    const other = await serve((_request, response) => {
      response.end('must not be reached');
    });
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${other.port}/secret` });
      response.end();
    });
    const { outcome, attempts } = await fetchWith(`${server.origin}/start`, {
      allowedTargets: [server.target],
    });
    const failure = expectFailure(outcome, 'refused');
    expect(failure.message).toContain(`redirect 1 to http://127.0.0.1:${other.port}/secret refused`);
    expect(attempts).toEqual([`127.0.0.1:${server.port}`]);
    expect(other.requests).toEqual([]);
    expect(other.connections()).toBe(0);
  });

  it('stops redirects to private and metadata addresses before connecting', async () => {
    const targets = [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/',
      'file:///etc/passwd',
    ];
    const server = await serve((request, response) => {
      const index = Number(request.url?.slice(1));
      response.writeHead(307, { location: targets[index] ?? '/' });
      response.end();
    });
    for (const [index, target] of targets.entries()) {
      const { outcome, attempts } = await fetchWith(`${server.origin}/${index}`, {
        allowedTargets: [server.target],
        allowPrivateNetwork: index > 0,
      });
      expect(expectFailure(outcome, 'refused').details).toMatchObject({ hop: 1, blockedUrl: target });
      expect(attempts).toEqual([`127.0.0.1:${server.port}`]);
    }
  });

  it('follows relative and absolute redirects by hand, recording each hop', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/a') response.writeHead(301, { location: '/b' });
      else if (request.url === '/b')
        response.writeHead(303, { location: `http://127.0.0.1:${server.port}/c?x=1` });
      else response.writeHead(200, { 'content-type': 'application/json' });
      response.end(request.url === '/c?x=1' ? '{"done":true}' : undefined);
    });
    const { outcome } = await fetchWith(`${server.origin}/a`, { allowedTargets: [server.target] });
    expect(outcome).toMatchObject({
      url: `${server.origin}/c?x=1`,
      redirects: [`${server.origin}/b`, `${server.origin}/c?x=1`],
      kind: 'json',
      text: '{"done":true}',
    });
  });

  it('gives up after five redirects', async () => {
    const server = await serve((request, response) => {
      response.writeHead(302, { location: `/r${Number(request.url?.slice(2)) + 1}` });
      response.end();
    });
    const { outcome } = await fetchWith(`${server.origin}/r0`, { allowedTargets: [server.target] });
    expect(expectFailure(outcome, 'redirects').message).toContain('stopped after 5 redirects');
    expect(server.requests.map((request) => request.url)).toEqual(['/r0', '/r1', '/r2', '/r3', '/r4', '/r5']);
  });
});

describe('caps', () => {
  it('stops a gzip bomb at the default 5 MB cap, counted after decompression', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x61));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(bomb);
    });
    expect(bomb.length).toBeLessThan(limits.maxBodyBytes / 10);
    const { outcome } = await fetchWith(`${server.origin}/bomb`, { allowedTargets: [server.target] });
    expect(expectFailure(outcome, 'too-large').message).toContain('counted after decompression');
  });

  it('counts the decompressed size, not the transferred size', async () => {
    const body = gzipSync(Buffer.alloc(100_000, 0x62));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(body);
    });
    const url = `${server.origin}/`;
    const guard = { allowedTargets: [server.target] };
    expectFailure((await fetchWith(url, guard, { maxBodyBytes: 50_000 })).outcome, 'too-large');
    expect((await fetchWith(url, guard, { maxBodyBytes: 100_000 })).outcome).toMatchObject({
      bytes: 100_000,
    });
  });

  it('stops a server that never answers at the timeout', async () => {
    const server = await serve(() => {
      // Never respond.
    });
    const { outcome } = await fetchWith(
      `${server.origin}/slow`,
      { allowedTargets: [server.target] },
      { timeoutMs: 200 },
    );
    expect(expectFailure(outcome, 'timeout').message).toContain('did not finish within 200 ms');
  });

  it('stops a body that trickles past the timeout', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first bytes');
      // Never end.
    });
    const { outcome } = await fetchWith(
      `${server.origin}/`,
      { allowedTargets: [server.target] },
      { timeoutMs: 200 },
    );
    expectFailure(outcome, 'timeout');
  });
});

describe('the time limit under frequent garbage collection', () => {
  // Node 20 collects an AbortSignal.timeout that only an AbortSignal.any refers to before it fires.
  // The server gives up after 3 s, so a limit that never fired shows as a network failure.
  it.each([
    [
      'a server that never answers',
      (response: ServerResponse) => setTimeout(() => response.destroy(), 3_000),
    ],
    [
      'a body that stops halfway',
      (response: ServerResponse) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('first bytes');
        setTimeout(() => response.destroy(), 3_000);
      },
    ],
  ])('stops %s at the timeout', async (_, respond) => {
    const server = await serve((_request, response) => respond(response));
    const collections = collectGarbageOften();
    try {
      const { outcome } = await fetchWith(
        `${server.origin}/`,
        { allowedTargets: [server.target] },
        { timeoutMs: 300 },
      );
      expect(expectFailure(outcome, 'timeout').message).toContain('did not finish within 300 ms');
    } finally {
      collections.stop();
    }
    expect(collections.count).toBeGreaterThan(0);
  });
});

describe('responses', () => {
  it('refuses unsupported and missing content types without reading the body', async () => {
    const types = ['application/octet-stream', 'image/png', 'application/pdf', undefined];
    const server = await serve((request, response) => {
      const type = types[Number(request.url?.slice(1))];
      response.writeHead(200, type ? { 'content-type': type } : {});
      response.end('binary');
    });
    for (const [index, type] of types.entries()) {
      const { outcome } = await fetchWith(`${server.origin}/${index}`, { allowedTargets: [server.target] });
      const failure = expectFailure(outcome, 'content-type');
      expect(failure.message).toContain(type ?? 'no Content-Type');
      expect(failure.message).toContain('only HTML, text');
    }
  });

  it('reports HTTP error statuses', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>missing</h1>');
    });
    const { outcome } = await fetchWith(`${server.origin}/gone`, { allowedTargets: [server.target] });
    expect(expectFailure(outcome, 'http-status').message).toContain('HTTP 404 Not Found');
  });

  it('decodes the declared charset, from the header or an HTML meta', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/header') {
        response.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' });
        response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      } else {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          Buffer.concat([Buffer.from('<meta charset="iso-8859-5"><p>'), Buffer.from([0xbf, 0xe0, 0xd8])]),
        );
      }
    });
    const guard = { allowedTargets: [server.target] };
    expect((await fetchWith(`${server.origin}/header`, guard)).outcome).toMatchObject({
      charset: 'iso-8859-1',
      text: 'café',
    });
    expect((await fetchWith(`${server.origin}/meta`, guard)).outcome).toMatchObject({
      charset: 'iso-8859-5',
      text: expect.stringContaining('При'),
    });
  });

  it('reports a connection error as a network failure', async () => {
    const server = await serve(() => {});
    const { port, target } = server;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const { outcome } = await fetchWith(`http://127.0.0.1:${port}/`, { allowedTargets: [target] });
    expect(expectFailure(outcome, 'network').message).toContain('ECONNREFUSED');
  });
});
