import { lookup as dnsLookup } from 'node:dns/promises';
import { WebToolsConfigError } from '../errors/web-tools-config-error';
import { type AddressRefusal, classifyAddress, PRIVATE_NETWORK_CATEGORIES } from './classify-address';
import { parseAddress } from './ip-address';

/** One address a host name resolves to. */
export interface LookupAddress {
  /** The IP address, e.g. `93.184.215.14` or `2606:2800:21f:cb07:6820:80da:af6b:8b2c`. */
  address: string;
  /** The address family. */
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Defaults to `dns.promises.lookup(hostname, { all: true })`. */
export type LookupFunction = (hostname: string) => Promise<LookupAddress[]>;

/** Which non-public destinations the guard lets through. */
export interface GuardOptions {
  /**
   * Resolves host names; injectable for tests and custom resolvers.
   * Default: `dns.promises.lookup(hostname, { all: true })`.
   */
  lookup?: LookupFunction;
  /**
   * Allow loopback, RFC 1918, CGNAT, link-local, unique-local and site-local addresses and the
   * local names (`localhost`, `*.local`, `*.internal`, ...). Cloud metadata stays refused. Default false.
   */
  allowPrivateNetwork?: boolean;
  /**
   * Exact `address:port` targets allowed although not public, e.g. `127.0.0.1:8080` or `[::1]:8080`
   * (a local test server, a sidecar). Only IP literals with an explicit port; metadata is never allowed.
   */
  allowedTargets?: readonly string[];
}

/** The compiled form of `GuardOptions`. */
export interface GuardPolicy {
  /** The resolver (the injected one or the DNS default). */
  readonly lookup: LookupFunction;
  /** Whether the private-network classes are open. */
  readonly allowPrivateNetwork: boolean;
  /** Allowed `address:port` targets, as canonical keys (family, numeric address, port). */
  readonly allowedTargets: ReadonlySet<string>;
}

/** The outcome of checking one address. */
export type AddressDecision = { ok: true } | { ok: false; refusal: AddressRefusal };

const defaultLookup: LookupFunction = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

function targetKey(address: string, port: number): string | undefined {
  const parsed = parseAddress(address);
  return parsed === undefined ? undefined : `${parsed.family}/${parsed.value.toString(16)}/${port}`;
}

function parseTarget(entry: unknown, field: string): string {
  if (typeof entry !== 'string') throw new WebToolsConfigError({ field, message: 'must be a string' });
  const match = /^\[([^\]]+)\]:(\d{1,5})$/.exec(entry) ?? /^([^:[\]]+):(\d{1,5})$/.exec(entry);
  const port = Number(match?.[2]);
  const address = match?.[1] ?? '';
  const key = match && port >= 1 && port <= 65535 ? targetKey(address, port) : undefined;
  if (key === undefined) {
    throw new WebToolsConfigError({
      field,
      message: `must be an IP literal with a port, like "127.0.0.1:8080" or "[::1]:8080", got ${JSON.stringify(entry)}`,
    });
  }
  if (classifyAddress(address)?.category === 'metadata') {
    throw new WebToolsConfigError({
      field,
      message: `${address} is a cloud metadata address and cannot be allowed`,
    });
  }
  return key;
}

/**
 * Compiles and validates guard options.
 *
 * Contract: throws `WebToolsConfigError` naming the field (prefixed with `fieldPrefix`) for a
 * non-function `lookup`, a non-boolean `allowPrivateNetwork` or a malformed or metadata target.
 */
export function compileGuardPolicy(options: GuardOptions = {}, fieldPrefix = ''): GuardPolicy {
  const { lookup, allowPrivateNetwork, allowedTargets } = options;
  if (lookup !== undefined && typeof lookup !== 'function') {
    throw new WebToolsConfigError({ field: `${fieldPrefix}lookup`, message: 'must be a function' });
  }
  if (allowPrivateNetwork !== undefined && typeof allowPrivateNetwork !== 'boolean') {
    throw new WebToolsConfigError({
      field: `${fieldPrefix}allowPrivateNetwork`,
      message: 'must be a boolean',
    });
  }
  if (allowedTargets !== undefined && !Array.isArray(allowedTargets)) {
    throw new WebToolsConfigError({ field: `${fieldPrefix}allowedTargets`, message: 'must be an array' });
  }
  return {
    lookup: lookup ?? defaultLookup,
    allowPrivateNetwork: allowPrivateNetwork ?? false,
    allowedTargets: new Set(
      (allowedTargets ?? []).map((entry, index) =>
        parseTarget(entry, `${fieldPrefix}allowedTargets[${index}]`),
      ),
    ),
  };
}

/**
 * Decides whether a connection to `address` on `port` may be made under `policy`.
 *
 * Contract: metadata addresses are refused whatever the policy; other refused classes pass only
 * through an exact allowed target or, for the private-network classes, `allowPrivateNetwork`.
 */
export function checkAddress(address: string, port: number, policy: GuardPolicy): AddressDecision {
  const refusal = classifyAddress(address);
  if (refusal === undefined) return { ok: true };
  if (refusal.category === 'metadata' || refusal.category === 'invalid') return { ok: false, refusal };
  const key = targetKey(address, port);
  if (key !== undefined && policy.allowedTargets.has(key)) return { ok: true };
  if (policy.allowPrivateNetwork && PRIVATE_NETWORK_CATEGORIES.has(refusal.category)) return { ok: true };
  return { ok: false, refusal };
}
