import { describeToolCategory } from '@switchyard/testkit/conformance';
import { afterAll } from 'vitest';
import { startLocalServer } from './__fixtures__/local-server';
import { createWebTools } from './index';

// One local server plays both a SearXNG instance and a web page; only its exact target is allowed.
const server = await startLocalServer((request, response) => {
  if (request.url?.startsWith('/search?')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        query: 'q',
        results: [
          { url: 'https://example.com/', title: 'Example', content: 'An example page.', publishedDate: null },
        ],
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(
    '<html><head><title>Page</title></head><body><article><h1>Page</h1><p>Hello from a local page.</p></article></body></html>',
  );
});
afterAll(() => server.close());

describeToolCategory(
  'web tools',
  () =>
    createWebTools({
      search: { provider: 'searxng', baseUrl: server.origin, timeoutMs: 2000 },
      fetch: { allowedTargets: [server.target], timeoutMs: 2000 },
    }),
  {
    samples: {
      web_search: [{ query: 'switchyard', count: 3 }],
      web_fetch: [
        { url: `${server.origin}/page` },
        { url: `${server.origin}/page`, start_index: 0, max_length: 100 },
      ],
    },
  },
);
