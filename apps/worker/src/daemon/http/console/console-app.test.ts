import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../__fixtures__/http-client';
import { type ConsoleSite, readConsoleFiles } from '../../console-files';
import { DaemonTurns } from '../../daemon-turns';
import { createRequestGuard } from '../../request-guard';
import { createDaemonHttpApi } from '../daemon-http-api';

// The console's files as the daemon answers them, over real HTTP: the API in process with the
// request guard, on a console folder written here (a page, a hashed script and stylesheet) beside a
// file the daemon must never answer. The built console through a real `switchyard serve` is in
// serve-console.test.ts.

const TOKEN = 'write-token-0123456789abcdef';
const READ_TOKEN = 'read-token-0123456789abcdef';
const PAGE =
  '<!doctype html><title>console</title><script type="module" src="./assets/index-Ab12Cd34.js"></script>';
const SCRIPT = 'console.log("console");';
const SECRET = 'the-secret-next-to-the-console';

/** A daemon's HTTP API on a free loopback port with `site` as its console; `close` stops it. */
async function serveApi(site: ConsoleSite) {
  let guard: ReturnType<typeof createRequestGuard> = () => undefined;
  const app = createDaemonHttpApi({
    // No route these tests call reaches the turns or the records past the token check.
    turns: new DaemonTurns({ model: {} as never }),
    controlPlane: {} as never,
    startTurn: async () => undefined,
    token: TOKEN,
    readToken: READ_TOKEN,
    checkRequest: (request) => guard(request),
    defaultAgent: 'main',
    agents: ['main'],
    maxBodyBytes: 64 * 1024,
    state: () => 'serving',
    version: '0.0.0-test',
    console: site,
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  guard = createRequestGuard({ listenHost: '127.0.0.1', port });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let folder: string;
let consoleDirectory: string;
let api: Awaited<ReturnType<typeof serveApi>>;

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-console-'));
  consoleDirectory = path.join(folder, 'console');
  await mkdir(path.join(consoleDirectory, 'assets'), { recursive: true });
  await writeFile(path.join(consoleDirectory, 'index.html'), PAGE);
  await writeFile(path.join(consoleDirectory, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  await writeFile(path.join(consoleDirectory, 'assets', 'index-Ef56Gh78.css'), 'main{color:red}');
  // Beside the console: reachable only by a path the daemon builds from a request.
  await writeFile(path.join(folder, 'package.json'), JSON.stringify({ secret: SECRET }));
  await writeFile(path.join(consoleDirectory, 'assets', '..', '..', 'secret.txt'), SECRET);
  // Inside the console folder, but not names a build makes: never served.
  await writeFile(path.join(consoleDirectory, 'assets', '.env'), SECRET);
  await writeFile(path.join(consoleDirectory, 'assets', 'a:b.js'), SECRET);
  api = await serveApi(await readConsoleFiles(consoleDirectory));
});

afterAll(async () => {
  await api?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the console at / (in process, over HTTP): its files', () => {
  it('answers the page at / and /index.html without a token, with the strict headers and no-cache', async () => {
    for (const pagePath of ['/', '/index.html']) {
      const response = await fetch(`${api.url}${pagePath}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(PAGE);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('answers the hashed assets as immutable, with their content types', async () => {
    const script = await fetch(`${api.url}/assets/index-Ab12Cd34.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(SCRIPT);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-security-policy')).toBe(CSP);
    const style = await fetch(`${api.url}/assets/index-Ef56Gh78.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style.text()).toBe('main{color:red}');
    const missing = await fetch(`${api.url}/assets/index-00000000.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers HEAD with the headers and no body', async () => {
    const page = await rawRequest(api.url, '/', { method: 'HEAD' });
    expect(page.status).toBe(200);
    expect(page.text).toBe('');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CSP);
    const script = await rawRequest(api.url, '/assets/index-Ab12Cd34.js', { method: 'HEAD' });
    expect(script.status).toBe(200);
    expect(script.text).toBe('');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});

describe('the console at / (in process, over HTTP): paths, tokens and the document', () => {
  it('never answers a file outside the console, however the path is spelled', async () => {
    const site = await readConsoleFiles(consoleDirectory);
    expect(site.status === 'served' ? [...site.files.keys()] : []).toEqual([
      '/assets/index-Ab12Cd34.js',
      '/assets/index-Ef56Gh78.css',
      '/index.html',
      '/',
    ]);
    const attempts = [
      '/assets/../package.json',
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/%2E%2E%2F%2E%2E%2Fpackage.json',
      '/assets/..%2f..%2fpackage.json',
      '/assets/..%5c..%5cpackage.json',
      '/%2e%2e/package.json',
      '/../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets//../../secret.txt',
      '/index.html/../../package.json',
      '/assets/.env',
      '/assets/a:b.js',
      '/assets/a%3Ab.js',
    ];
    for (const attempt of attempts) {
      // With the token, so nothing stops the request before the routes: none names a console file.
      const answer = await rawRequest(api.url, attempt, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(answer.status, attempt).toBe(404);
      expect(JSON.parse(answer.text), attempt).toMatchObject({ error: { code: 'not_found' } });
      // Without it: what normalises to a path outside the console is the API's, which needs the token.
      const anonymous = await rawRequest(api.url, attempt);
      expect([401, 404], attempt).toContain(anonymous.status);
      expect(anonymous.text, attempt).not.toContain(SECRET);
    }
  });

  it('still needs the token for the API, and the request guard still applies to the console', async () => {
    const refused = await fetch(`${api.url}/v1/turns`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const foreign = await rawRequest(api.url, '/', { headers: { host: 'evil.example' } });
    expect(foreign.status).toBe(421);
    expect(foreign.text).not.toContain('<title>');
    const crossSite = await rawRequest(api.url, '/', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    const otherOrigin = await rawRequest(api.url, '/assets/index-Ab12Cd34.js', {
      headers: {
        origin: 'http://evil.example',
      },
    });
    expect(otherOrigin.status).toBe(403);
    // A write to the page's path is no way around the token.
    const post = await rawRequest(api.url, '/', { method: 'POST' });
    expect(post.status).toBe(401);
    const allowed = await rawRequest(api.url, '/', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(allowed.status).toBe(405);
    expect(allowed.headers.allow).toBe('GET, HEAD');
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const response = await fetch(`${api.url}/v1/openapi.json`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).not.toContain('/');
    expect(
      Object.keys(document.paths).filter((key) => !key.startsWith('/v1/') && key !== '/healthz'),
    ).toEqual([]);
  });
});

describe('the console not built, or turned off', () => {
  it('answers / with console_not_built saying how to build it, and the API still works', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'switchyard-console-empty-'));
    try {
      const site = await readConsoleFiles(path.join(empty, 'console'));
      expect(site).toEqual({ status: 'not-built', directory: path.join(empty, 'console') });
      const api = await serveApi(site);
      try {
        for (const pagePath of ['/', '/index.html', '/assets/index-Ab12Cd34.js']) {
          const response = await fetch(`${api.url}${pagePath}`);
          expect(response.status).toBe(404);
          const body = (await response.json()) as { error: { code: string; message: string } };
          expect(body.error.code).toBe('console_not_built');
          expect(body.error.message).toContain('turbo run build --filter=@switchyard/worker...');
        }
        const health = await fetch(`${api.url}/healthz`);
        expect(health.status).toBe(200);
        const turns = await fetch(`${api.url}/v1/turns`);
        expect(turns.status).toBe(401);
      } finally {
        await api.close();
      }
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('answers / with not_found when serve.console is false', async () => {
    const api = await serveApi({ status: 'disabled' });
    try {
      const response = await fetch(`${api.url}/`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
      expect(response.headers.get('content-security-policy')).toBeNull();
    } finally {
      await api.close();
    }
  });
});
