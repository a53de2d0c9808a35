import { checkHost } from './check-host';
import { compileGuardPolicy, type GuardOptions, type GuardPolicy, type LookupAddress } from './guard-policy';

/** Options of `checkUrl`. */
export type CheckUrlOptions = GuardOptions;

/** What `checkUrl` decides: the normalised URL and the addresses it may reach, or why it is refused. */
export type CheckUrlResult =
  | {
      /** The URL may be fetched. */
      ok: true;
      /** The URL as the WHATWG parser normalised it (`href`). */
      url: string;
      /** Every address the host resolves to, each checked. */
      addresses: LookupAddress[];
    }
  | {
      /** The URL is refused. */
      ok: false;
      /** Why, in a sentence the model can act on. */
      reason: string;
    };

/** URLs longer than this are refused outright. */
export const MAX_URL_LENGTH = 8192;

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** `checkUrl` with a compiled policy: what the fetch uses on every hop. */
export async function checkUrlWithPolicy(input: string | URL, policy: GuardPolicy): Promise<CheckUrlResult> {
  const text = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
  if (text === undefined) return { ok: false, reason: 'the URL must be a string' };
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `${JSON.stringify(text.slice(0, 200))} is not a valid absolute URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'URLs with credentials (user:password@) are refused' };
  }
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  const host = await checkHost(url.hostname, port, policy);
  if (!host.ok) return { ok: false, reason: `${url.host} refused: ${host.reason}` };
  return { ok: true, url: url.href, addresses: host.addresses };
}

/**
 * Checks that a URL may be fetched without reaching a private, local or metadata address.
 * Parses it with the WHATWG URL parser (so every IPv4 spelling it accepts, like `http://2130706433/`,
 * `http://0x7f.1/` or `http://127.1/`, is normalised before the check), accepts only http and https
 * without credentials, refuses local names (`localhost`, `*.localhost`, `*.local`, `*.internal`,
 * `*.home.arpa`) and metadata names, resolves other names with `lookup` and refuses the URL if any
 * address is refused.
 *
 * Contract: resolves to `{ ok: false, reason }` for every refusal and lookup failure; throws
 * `WebToolsConfigError` only for invalid options. Metadata addresses and names stay refused even
 * with `allowPrivateNetwork`. A passing check is not enough on its own: connect to the checked
 * addresses (as `web_fetch` does), since a name may resolve differently later.
 *
 * @example
 * const result = await checkUrl('http://0x7f.1/admin');
 * // { ok: false, reason: '127.0.0.1 refused: 127.0.0.1 is a refused address: loopback (127.0.0.0/8)' }
 */
export async function checkUrl(url: string | URL, options: CheckUrlOptions = {}): Promise<CheckUrlResult> {
  return checkUrlWithPolicy(url, compileGuardPolicy(options));
}
