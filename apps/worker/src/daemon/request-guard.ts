import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import os from 'node:os';

/** What a `charset` parameter may say of a JSON body: its label, and the common misspelling. */
const UTF_8_NAMES: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

/** Why a request was refused before it reached a route. */
export interface RequestRefusal {
  /** 421 for a foreign `Host`, 403 for a cross-site request, 415 for a body that is not JSON. */
  status: 403 | 415 | 421;
  /** The error code of the `{ error: { code, message } }` body. */
  code: 'misdirected_request' | 'cross_site_request' | 'unsupported_media_type';
  /** What is wrong and what to do. */
  message: string;
}

/** What `createRequestGuard` takes. */
export interface RequestGuardOptions {
  /** The address the daemon listens on (`127.0.0.1`, `0.0.0.0`, a name, ...). */
  listenHost: string;
  /** The bound port. */
  port: number;
  /**
   * More host names the daemon answers to (`serve.allowedHosts`): `name` (any port, e.g. behind a
   * reverse proxy) or `name:port`.
   */
  allowedHosts?: readonly string[];
}

interface HostPattern {
  name: string;
  /** Undefined: any port. */
  port: number | undefined;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '::0']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Sites a browser may name in `Sec-Fetch-Site` for a request this daemon should take. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

function normaliseName(name: string): string {
  const lower = name.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/**
 * `host`, `host:port`, `[v6]` or `[v6]:port` as written in a `Host` header or `serve.allowedHosts`;
 * undefined when it is not one.
 */
export function parseHostAndPort(value: string): HostPattern | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (match === null) return undefined;
  const [, name, port] = match;
  if (name === undefined) return undefined;
  const number = port === undefined ? undefined : Number(port);
  if (number !== undefined && number > 65_535) return undefined;
  return { name: normaliseName(name), port: number };
}

/** This machine's own names and addresses: what a daemon listening on every interface answers to. */
function machineNames(): string[] {
  const names = [os.hostname()];
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) names.push(address.address.split('%')[0] as string);
  }
  return names;
}

/**
 * The checks that keep a browser from using the daemon on another site's behalf (cross-site request
 * forgery, DNS rebinding), whatever the token: a request must name one of the daemon's own hosts in
 * `Host`; an `Origin`, when sent, must be one of them too; a browser's `Sec-Fetch-Site` must say
 * `same-origin` (or `none`, typed by the user); and a request that carries a body must say it is
 * JSON, since only simple content types (`text/plain`, forms) can be sent cross-site without a
 * preflight.
 *
 * The daemon's own hosts: its listen address, `localhost`, `127.0.0.1` and `[::1]` on its port; the
 * machine's names and addresses when it listens on every interface; and `allowedHosts`.
 *
 * Contract: returns the refusal for a request to refuse, undefined for one to serve.
 *
 * @example
 * const guard = createRequestGuard({ listenHost: '127.0.0.1', port: 8787 });
 * guard({ method: 'POST', headers: { host: 'evil.example:8787' } }); // { status: 421, ... }
 */
export function createRequestGuard(
  options: RequestGuardOptions,
): (request: { method?: string | undefined; headers: IncomingHttpHeaders }) => RequestRefusal | undefined {
  const own: HostPattern[] = ['localhost', '127.0.0.1', '::1'].map((name) => ({ name, port: options.port }));
  const listen = normaliseName(options.listenHost);
  if (WILDCARD.has(options.listenHost) || WILDCARD.has(listen)) {
    for (const name of machineNames()) own.push({ name: normaliseName(name), port: options.port });
  } else {
    own.push({ name: listen, port: options.port });
  }
  for (const entry of options.allowedHosts ?? []) {
    const pattern = parseHostAndPort(entry);
    if (pattern !== undefined) own.push(pattern);
  }
  const isOwn = (host: HostPattern, defaultPort: number) =>
    own.some(
      (pattern) =>
        pattern.name === host.name &&
        (pattern.port === undefined || pattern.port === (host.port ?? defaultPort)),
    );
  const hostList = () =>
    own
      .filter((pattern) => pattern.port !== undefined || !isIP(pattern.name))
      .slice(0, 6)
      .map(
        (pattern) =>
          `${isIP(pattern.name) === 6 ? `[${pattern.name}]` : pattern.name}${pattern.port === undefined ? '' : `:${pattern.port}`}`,
      )
      .join(', ');

  return (request) => {
    const { headers } = request;
    const host = parseHostAndPort(headers.host ?? '');
    if (host === undefined || !isOwn(host, 80)) {
      return {
        status: 421,
        code: 'misdirected_request',
        message: `this daemon does not answer to the host ${JSON.stringify(headers.host ?? '')}; use one of ${hostList()}, or add the name to serve.allowedHosts`,
      };
    }
    const origin = headers.origin;
    if (origin !== undefined) {
      let allowed = false;
      try {
        const url = new URL(origin);
        const originHost = parseHostAndPort(url.host);
        allowed =
          (url.protocol === 'http:' || url.protocol === 'https:') &&
          originHost !== undefined &&
          isOwn(originHost, url.protocol === 'https:' ? 443 : 80);
      } catch {
        // `null` and anything else that is not a URL: an opaque origin is never this daemon's.
      }
      if (!allowed) {
        return {
          status: 403,
          code: 'cross_site_request',
          message: `requests from the origin ${JSON.stringify(origin)} are refused: only this daemon's own pages may call its API from a browser`,
        };
      }
    }
    const site = headers['sec-fetch-site'];
    if (typeof site === 'string' && !OWN_FETCH_SITES.has(site.toLowerCase())) {
      return {
        status: 403,
        code: 'cross_site_request',
        message: `a ${site} request from a browser is refused: only this daemon's own pages may call its API from a browser`,
      };
    }
    const method = (request.method ?? 'GET').toUpperCase();
    const type = headers['content-type'];
    const hasBody =
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    // A body, or a body-carrying method that declares a type, must be JSON.
    if (hasBody || (BODY_METHODS.has(method) && type !== undefined)) {
      const [mediaType, ...parameters] = (type ?? '').split(';').map((part) => part.trim().toLowerCase());
      // JSON is UTF-8 (RFC 8259): a body said to be in another charset would be read as UTF-8 anyway.
      const charset = parameters
        .find((parameter) => parameter.startsWith('charset='))
        ?.slice('charset='.length);
      if (
        mediaType !== 'application/json' ||
        (charset !== undefined && !UTF_8_NAMES.has(charset.replaceAll('"', '')))
      ) {
        return {
          status: 415,
          code: 'unsupported_media_type',
          message: `the request body must be JSON in UTF-8, sent with Content-Type: application/json (got ${type === undefined ? 'none' : JSON.stringify(type)})`,
        };
      }
    }
    return undefined;
  };
}
