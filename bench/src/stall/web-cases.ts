// Adversarial stall cases for the web tools: pages (and one search answer) built to make a
// converter or a scan run for seconds, served from a local server within the tools' documented
// limits, called through the tool's public path (argument validation, then execute).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import { callTool } from '@switchyard/testkit';
import { createWebTools, type WebFetchOptions } from '@switchyard/tools-web';
import type { StallCase, StallCaseSet } from './stall-case';

const KB_240 = 240 * 1024;
const MB_5 = 5 * 1024 * 1024;
/** `maxBodyBytes`'s documented maximum (the default is 5 MB). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The search adapters read at most 4 MB of an answer. */
const SEARCH_BODY_BYTES = 3.5 * 1024 * 1024;

/** `unit` repeated to exactly `size` characters (ASCII units: bytes too). */
function repeat(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** `prefix`, `unit` repeated and `suffix`, `size` bytes in all. */
function page(prefix: string, unit: string, suffix: string, size: number): string {
  return `${prefix}${repeat(unit, size - prefix.length - suffix.length)}${suffix}`;
}

interface Served {
  server: Server;
  origin: string;
  target: string;
}

/** Every server the cases started, closed by the set's `close()`. */
type Servers = Set<Served>;

async function serve(servers: Servers, type: string, body: Buffer): Promise<Served> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': type });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const served = { server, origin: `http://127.0.0.1:${port}`, target: `127.0.0.1:${port}` };
  servers.add(served);
  return served;
}

function close(served: Served): Promise<void> {
  return new Promise((resolve) => {
    served.server.closeAllConnections();
    served.server.close(() => resolve());
  });
}

/** Throws unless the call ran `execute` and got a result (an `isError` result counts: it is an answer). */
function callOnce(tool: AnyWorkerAgentTool, params: Record<string, unknown>): Promise<unknown> {
  return callTool([tool], tool.name, params);
}

function webFetchCase(
  servers: Servers,
  name: string,
  type: string,
  build: () => string,
  options: WebFetchOptions = {},
): StallCase {
  let served: Served | undefined;
  let tool: AnyWorkerAgentTool | undefined;
  return {
    tool: 'web_fetch',
    name,
    async setup() {
      if (served !== undefined) return;
      served = await serve(servers, type, Buffer.from(build()));
      // Default limits (30 s, 10 s conversion, 5 MB) unless the case says otherwise; the guard
      // opens exactly this one local server.
      [tool] = createWebTools({ fetch: { ...options, allowedTargets: [served.target] } });
    },
    run() {
      if (served === undefined || tool === undefined) throw new Error('setup() did not run');
      return callOnce(tool, { url: `${served.origin}/page` });
    },
  };
}

function webSearchCase(servers: Servers, name: string, build: () => string): StallCase {
  let served: Served | undefined;
  let tool: AnyWorkerAgentTool | undefined;
  return {
    tool: 'web_search',
    name,
    async setup() {
      if (served !== undefined) return;
      served = await serve(servers, 'application/json', Buffer.from(build()));
      // A SearXNG profile: its base URL is trusted configuration, so the local server needs no opening.
      [tool] = createWebTools({ search: { provider: 'searxng', baseUrl: served.origin } });
    },
    run() {
      if (tool === undefined) throw new Error('setup() did not run');
      return callOnce(tool, { query: 'stall' });
    },
  };
}

/**
 * The web tools' stall cases: each `run` is one call within the documented limits on input built
 * to be slow (the review's 240 KB pages first, then variants up to the 5 MB default body limit and
 * the 10 MiB maximum).
 */
export function createWebStallCases(): StallCaseSet {
  const html = 'text/html; charset=utf-8';
  const servers: Servers = new Set();
  const cases = [
    webFetchCase(servers, '240 KB of <head>', html, () => repeat('<head>', KB_240)),
    webFetchCase(servers, '240 KB of <!doctype', html, () => repeat('<!doctype', KB_240)),
    webFetchCase(servers, '240 KB of <html without >', html, () => repeat('<html', KB_240)),
    webFetchCase(servers, '< and 240 KB of spaces, HTML', html, () => page('<p>x <', ' ', 'y</p>', KB_240)),
    webFetchCase(servers, '< and 240 KB of spaces, text', 'text/plain', () => page('x <', ' ', 'y', KB_240)),
    webFetchCase(servers, '5 MB of < and 60 spaces, text', 'text/plain', () =>
      repeat(`<${' '.repeat(60)}`, MB_5),
    ),
    webFetchCase(servers, '5 MB of unclosed <div>', html, () => repeat('<div>', MB_5)),
    webFetchCase(servers, '5 MB of nested lists', html, () => page('<body>', '<ul><li>', '', MB_5)),
    webFetchCase(servers, '5 MB of nested tables', html, () => page('<body>', '<table><tr><td>', '', MB_5)),
    webFetchCase(servers, '5 MB of attributes on one tag', html, () =>
      page('<body><p ', ' a="1"', '>x</p>', MB_5),
    ),
    webFetchCase(servers, '5 MB text node', html, () => page('<body><p>', 'word ', '</p>', MB_5)),
    webFetchCase(servers, '5 MB of &amp without ;', html, () => page('<body><p>', '&amp', '</p>', MB_5)),
    webFetchCase(
      servers,
      '5 MB of nested JSON arrays',
      'application/json',
      () => `${repeat('[', MB_5 / 2)}${repeat(']', MB_5 / 2)}`,
    ),
    webFetchCase(servers, '10 MiB (maximum) of unclosed <div>', html, () => repeat('<div>', MAX_BODY_BYTES), {
      maxBodyBytes: MAX_BODY_BYTES,
    }),
    webSearchCase(servers, '3.5 MB answer, a snippet of unclosed <', () => {
      const prefix = '{"results":[{"title":"t","url":"https://example.com/","content":"';
      const suffix = '"}]}';
      return page(prefix, '< ', suffix, SEARCH_BODY_BYTES);
    }),
  ];
  return {
    category: 'web',
    corpus:
      'pages served from a local server (one per case, built on first use): the 240 KB pages of the review, then up to the 5 MB default body limit and the 10 MiB maximum; one 3.5 MB SearXNG answer',
    cases,
    async close() {
      await Promise.all([...servers].map(close));
      servers.clear();
    },
  };
}
