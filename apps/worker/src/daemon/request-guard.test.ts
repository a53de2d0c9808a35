import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { createRequestGuard, parseHostAndPort } from './request-guard';

const guard = createRequestGuard({ listenHost: '127.0.0.1', port: 8787 });
const post = (headers: IncomingHttpHeaders) =>
  guard({ method: 'POST', headers: { 'content-length': '20', ...headers } });

describe('request guard: Host', () => {
  it.each([
    ['127.0.0.1:8787'],
    ['localhost:8787'],
    ['LOCALHOST:8787'],
    ['localhost.:8787'],
    ['[::1]:8787'],
  ])('serves the daemon’s own host %s', (host) => {
    expect(guard({ method: 'GET', headers: { host } })).toBeUndefined();
  });

  it.each([
    ['evil.example:8787', 'a foreign name (DNS rebinding)'],
    ['evil.example', 'a foreign name on the default port'],
    ['127.0.0.1:9999', 'the right address on another port'],
    ['localhost', 'a loopback name on port 80'],
    ['', 'no Host at all'],
    ['127.0.0.1:8787@evil', 'a malformed Host'],
  ])('refuses %s (%s) with 421', (host) => {
    expect(guard({ method: 'GET', headers: { host } })).toMatchObject({
      status: 421,
      code: 'misdirected_request',
    });
  });

  it('answers to serve.allowedHosts entries, with or without their port', () => {
    const withAllowed = createRequestGuard({
      listenHost: '127.0.0.1',
      port: 8787,
      allowedHosts: ['switchyard.internal', 'gateway.example:443'],
    });
    expect(withAllowed({ headers: { host: 'switchyard.internal' } })).toBeUndefined();
    expect(withAllowed({ headers: { host: 'switchyard.internal:8787' } })).toBeUndefined();
    expect(withAllowed({ headers: { host: 'gateway.example:443' } })).toBeUndefined();
    expect(withAllowed({ headers: { host: 'gateway.example:8443' } })?.status).toBe(421);
  });

  it('answers to the machine’s own names when listening on every interface', () => {
    const wildcard = createRequestGuard({ listenHost: '0.0.0.0', port: 8787 });
    expect(wildcard({ headers: { host: `${os.hostname()}:8787` } })).toBeUndefined();
    expect(wildcard({ headers: { host: '127.0.0.1:8787' } })).toBeUndefined();
    expect(wildcard({ headers: { host: 'evil.example:8787' } })?.status).toBe(421);
  });
});

describe('request guard: browsers on another site’s behalf', () => {
  const own = { host: '127.0.0.1:8787', 'content-type': 'application/json' };

  it('refuses a cross-site Origin, an opaque one, and one on another port', () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'http://localhost:3000',
      'file://',
      'http://127.0.0.1:8787.evil',
    ]) {
      expect(post({ ...own, origin }), origin).toMatchObject({ status: 403, code: 'cross_site_request' });
    }
  });

  it('serves a request from its own origin', () => {
    expect(
      post({ ...own, origin: 'http://127.0.0.1:8787', 'sec-fetch-site': 'same-origin' }),
    ).toBeUndefined();
    expect(post({ ...own, origin: 'http://localhost:8787' })).toBeUndefined();
  });

  it.each(['cross-site', 'same-site'])('refuses Sec-Fetch-Site: %s even without an Origin', (site) => {
    expect(
      guard({ method: 'GET', headers: { host: '127.0.0.1:8787', 'sec-fetch-site': site } }),
    ).toMatchObject({
      status: 403,
    });
  });

  it('serves a navigation the user typed (Sec-Fetch-Site: none)', () => {
    expect(
      guard({ method: 'GET', headers: { host: '127.0.0.1:8787', 'sec-fetch-site': 'none' } }),
    ).toBeUndefined();
  });

  it('refuses a body that is not declared JSON with 415: the simple types a page can send cross-site', () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ]) {
      const headers: IncomingHttpHeaders = { host: '127.0.0.1:8787' };
      if (type !== undefined) headers['content-type'] = type;
      expect(post(headers), String(type)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    }
    expect(
      post({ host: '127.0.0.1:8787', 'content-type': 'application/json; charset=utf-8' }),
    ).toBeUndefined();
    expect(
      post({ host: '127.0.0.1:8787', 'content-type': 'Application/JSON;Charset="UTF-8"' }),
    ).toBeUndefined();
    expect(
      post({ host: '127.0.0.1:8787', 'content-type': 'application/json; charset=utf8' }),
    ).toBeUndefined();
    // JSON is UTF-8: a body said to be in another charset would be read wrong.
    for (const charset of ['utf-16', 'iso-8859-1', 'utf-8x']) {
      expect(
        post({ host: '127.0.0.1:8787', 'content-type': `application/json; charset=${charset}` }),
        charset,
      ).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    }
    expect(
      guard({ method: 'PUT', headers: { host: '127.0.0.1:8787', 'transfer-encoding': 'chunked' } })?.status,
    ).toBe(415);
  });

  it('serves a bodiless request without a content type (a GET, a POST with no body)', () => {
    expect(guard({ method: 'GET', headers: { host: '127.0.0.1:8787' } })).toBeUndefined();
    expect(
      guard({ method: 'POST', headers: { host: '127.0.0.1:8787', 'content-length': '0' } }),
    ).toBeUndefined();
  });
});

describe('parseHostAndPort', () => {
  it('reads names, addresses and bracketed IPv6 with optional ports, and refuses the rest', () => {
    expect(parseHostAndPort('Example.COM:80')).toEqual({ name: 'example.com', port: 80 });
    expect(parseHostAndPort('[::1]')).toEqual({ name: '::1', port: undefined });
    expect(parseHostAndPort('10.0.0.5:8787')).toEqual({ name: '10.0.0.5', port: 8787 });
    for (const bad of ['', 'a b', 'host:99999', 'user@host', 'host:port', '::1']) {
      expect(parseHostAndPort(bad), bad).toBeUndefined();
    }
  });
});
