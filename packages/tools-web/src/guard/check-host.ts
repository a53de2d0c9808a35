import { isIPv4, isIPv6 } from 'node:net';
import type { AddressRefusal } from './classify-address';
import { checkAddress, type GuardPolicy, type LookupAddress } from './guard-policy';

/** The outcome of checking a host and port: every address it reaches, or why it is refused. */
export type HostCheck = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/** Why a host name is refused by name alone, or undefined. */
function refuseByName(name: string, policy: GuardPolicy): string | undefined {
  if (METADATA_NAMES.has(name)) return `"${name}" is a cloud metadata host name`;
  if (policy.allowPrivateNetwork) return undefined;
  if (name === 'localhost' || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    return `"${name}" is a local host name (localhost, *.localhost, *.local, *.internal, *.home.arpa)`;
  }
  return undefined;
}

function describeRefusal(address: string, refusal: AddressRefusal): string {
  return `${address} is a refused address: ${refusal.description}`;
}

function validAnswer(value: unknown): value is LookupAddress {
  if (typeof value !== 'object' || value === null) return false;
  const { address, family } = value as Record<string, unknown>;
  return (
    typeof address === 'string' && ((family === 4 && isIPv4(address)) || (family === 6 && isIPv6(address)))
  );
}

/**
 * Checks a URL host (as the WHATWG parser normalised it: bracketed IPv6, dotted IPv4 or a
 * lower-case ASCII name) and port under `policy`: IP literals directly, names by name and then
 * every address `policy.lookup` returns.
 *
 * Contract: never throws; a failing or empty lookup and any refused address give `{ ok: false }`.
 */
export async function checkHost(hostname: string, port: number, policy: GuardPolicy): Promise<HostCheck> {
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIPv6(literal) || isIPv4(literal)) {
    const decision = checkAddress(literal, port, policy);
    return decision.ok
      ? { ok: true, addresses: [{ address: literal, family: isIPv4(literal) ? 4 : 6 }] }
      : { ok: false, reason: describeRefusal(literal, decision.refusal) };
  }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name === '' || name.startsWith('.') || hostname.startsWith('[')) {
    return { ok: false, reason: `"${hostname}" is not a valid host name` };
  }
  const byName = refuseByName(name.toLowerCase(), policy);
  if (byName !== undefined) return { ok: false, reason: byName };
  let answers: unknown;
  try {
    answers = await policy.lookup(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      reason: `could not resolve "${name}"${typeof code === 'string' ? ` (${code})` : ''}`,
    };
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    return { ok: false, reason: `"${name}" resolved to no address` };
  }
  const addresses: LookupAddress[] = [];
  for (const answer of answers) {
    if (!validAnswer(answer)) return { ok: false, reason: `"${name}" resolved to a malformed address` };
    const decision = checkAddress(answer.address, port, policy);
    if (!decision.ok) {
      return {
        ok: false,
        reason: `"${name}" resolves to ${answer.address}, a refused address: ${decision.refusal.description}`,
      };
    }
    addresses.push({ address: answer.address, family: answer.family });
  }
  return { ok: true, addresses };
}
