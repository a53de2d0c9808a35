import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeFolder } from './__fixtures__/serve-folder';

/** The built console the worker's build copied beside the CLI (`pnpm build` runs before the tests). */
const consoleDirectory = fileURLToPath(new URL('../../dist/console', import.meta.url));

describe('switchyard serve answers the built console (a real child process on embedded PGlite)', () => {
  let folder: ServeFolder;
  let url: string;

  beforeAll(async () => {
    ({ folder, url } = await ServeFolder.serveOnFakeModel('console', {
      // A heartbeat of its own: the session publishes it as how soon an answered, let-go turn continues.
      settings: { serve: { heartbeatMs: 7_000 } },
      script: () => ({ text: 'unused' }),
      args: ['--agent', 'ada'],
    }));
  }, 180_000);

  afterAll(() => folder?.remove(5_000), 180_000);

  it('answers / with the page, and every script, stylesheet and image the page names', async () => {
    const started = performance.now();
    const page = await fetch(`${url}/`);
    const body = await page.text();
    const elapsed = performance.now() - started;
    console.log(`console: GET / answered in ${elapsed.toFixed(1)} ms (${body.length} bytes)`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(body).toBe(await readFile(path.join(consoleDirectory, 'index.html'), 'utf8'));
    // Our own built page (not untrusted input): every local file it links to.
    const named = [...body.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1] as string)
      .filter((reference) => !/^[a-z]+:/i.test(reference) && !reference.startsWith('#'));
    expect(named.length).toBeGreaterThan(0);
    for (const reference of named) {
      const assetUrl = new URL(reference, `${url}/`);
      const answer = await fetch(assetUrl);
      expect(answer.status, reference).toBe(200);
      const bytes = new Uint8Array(await answer.arrayBuffer());
      const onDisk = await readFile(path.join(consoleDirectory, decodeURIComponent(assetUrl.pathname)));
      expect(Buffer.from(bytes).equals(onDisk), reference).toBe(true);
      if (assetUrl.pathname.startsWith('/assets/')) {
        expect(answer.headers.get('cache-control'), reference).toBe('public, max-age=31536000, immutable');
      }
    }
    // The API beside it still answers.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('answers the console’s first reads: the session (no token on loopback) and the agent’s tool manifest', async () => {
    const session = await fetch(`${url}/v1/session`);
    expect(session.status).toBe(200);
    expect(await session.json()).toMatchObject({
      access: 'full',
      agents: ['ada'],
      defaultAgent: 'ada',
      continueAnsweredWithinMs: 7_000,
    });
    const tools = await fetch(`${url}/v1/tools`);
    expect(tools.status).toBe(200);
    const manifest = (await tools.json()) as {
      agent: string;
      tools: Array<{ key: string }>;
      totals: { tools: number };
    };
    expect(manifest.agent).toBe('ada');
    expect(manifest.tools.length).toBeGreaterThan(0);
    expect(manifest.totals.tools).toBe(manifest.tools.length);
  });
});

describe('the console’s size in the worker’s install', () => {
  it('is at most 300 KB gzipped (file by file, zlib level 9)', async () => {
    const entries = await readdir(consoleDirectory, { recursive: true, withFileTypes: true });
    const files = entries.filter((entry) => entry.isFile());
    expect(files.map((entry) => entry.name)).toContain('index.html');
    let total = 0;
    for (const entry of files) {
      const bytes = await readFile(path.join(entry.parentPath, entry.name));
      total += gzipSync(bytes, { level: 9 }).byteLength;
    }
    console.log(`console: ${(total / 1024).toFixed(1)} KB gzipped (${files.length} files)`);
    expect(total).toBeLessThanOrEqual(300 * 1024);
  });
});
