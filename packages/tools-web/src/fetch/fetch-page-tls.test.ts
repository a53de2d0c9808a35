import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOnlyConnector } from '../__fixtures__/loopback-only-connector';
import { compileGuardPolicy } from '../guard/guard-policy';
import { fetchPage } from './fetch-page';

// A throw-away self-signed certificate for `secure.test`, made with openssl for this run only.
let directory = '';
let cert = '';
let key = '';
const seen: { servername: string | undefined; host: string | undefined }[] = [];
let server: ReturnType<typeof createServer>;
let port = 0;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tools-web-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=secure.test',
      '-addext',
      'subjectAltName=DNS:secure.test',
      '-keyout',
      join(directory, 'key.pem'),
      '-out',
      join(directory, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(directory, 'cert.pem'), 'utf8');
  key = readFileSync(join(directory, 'key.pem'), 'utf8');
  server = createServer({ cert, key }, (request, response) => {
    seen.push({
      servername: (request.socket as { servername?: string }).servername,
      host: request.headers.host,
    });
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('secure hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(directory, { recursive: true, force: true });
});

describe('connect-time guard over TLS', () => {
  it('connects to the checked address while the TLS server name and Host stay the original name', async () => {
    const recorder = loopbackOnlyConnector({ ca: cert });
    const page = await fetchPage(`https://secure.test:${port}/`, {
      policy: compileGuardPolicy({
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        allowedTargets: [`127.0.0.1:${port}`],
      }),
      limits: { timeoutMs: 10_000, maxBodyBytes: 1024, maxRedirects: 0, userAgent: 'test' },
      signal: new AbortController().signal,
      connector: recorder.connector,
    });
    expect(Buffer.from(page.body).toString('utf8')).toBe('secure hello');
    expect(recorder.attempts).toEqual([`127.0.0.1:${port}`]);
    // The certificate is for secure.test only: verification passing proves SNI and the check used the name.
    expect(seen).toEqual([{ servername: 'secure.test', host: `secure.test:${port}` }]);
  });
});
