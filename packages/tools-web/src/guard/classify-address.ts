import { formatIPv4, parseAddress } from './ip-address';

/**
 * Why an address is refused. `metadata` is refused even when private networks are allowed.
 * `ipv4-embedded` covers IPv6 forms that carry an IPv4 address (mapped, compatible, translated,
 * local-use NAT64, 6to4, Teredo): refused whatever they embed, since they reach IPv4 hosts past an
 * IPv6-only check. The well-known NAT64 prefix `64:ff9b::/96` is refused only when the IPv4 address it
 * embeds is.
 */
export type AddressCategory =
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'shared-address'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'unspecified'
  | 'broadcast'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'ipv4-embedded'
  | 'invalid';

/** A refused address's category and a human-readable description for the refusal message. */
export interface AddressRefusal {
  /** The refused class. */
  category: AddressCategory;
  /** E.g. "loopback (127.0.0.0/8)". */
  description: string;
  /** For IPv4 embedded in IPv6: the embedded IPv4 address. */
  embedded?: string;
}

/** The categories `allowPrivateNetwork` opens: local networks a worker may legitimately reach. */
export const PRIVATE_NETWORK_CATEGORIES: ReadonlySet<AddressCategory> = new Set<AddressCategory>([
  'loopback',
  'private',
  'shared-address',
  'link-local',
  'unique-local',
  'site-local',
]);

interface Range<T extends number | bigint> {
  base: T;
  mask: T;
  cidr: string;
  category: AddressCategory;
  name: string;
}

function v4Range(cidr: string, category: AddressCategory, name: string): Range<number> {
  const [address = '', bits = '32'] = cidr.split('/');
  const parsed = parseAddress(address);
  if (parsed?.family !== 4) throw new Error(`bad IPv4 range ${cidr}`);
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (parsed.value & mask) >>> 0, mask, cidr, category, name };
}

const ALL_128 = (1n << 128n) - 1n;

function v6Range(cidr: string, category: AddressCategory, name: string): Range<bigint> {
  const [address = '', bits = '128'] = cidr.split('/');
  const parsed = parseAddress(address);
  if (parsed?.family !== 6) throw new Error(`bad IPv6 range ${cidr}`);
  const prefix = BigInt(Number(bits));
  const mask = (ALL_128 << (128n - prefix)) & ALL_128;
  return { base: parsed.value & mask, mask, cidr, category, name };
}

// Order matters: the first matching range names the refusal (specific before general).
const IPV4_RANGES: readonly Range<number>[] = [
  v4Range('169.254.169.254/32', 'metadata', 'cloud metadata service'),
  v4Range('169.254.170.2/32', 'metadata', 'container credentials endpoint (ECS)'),
  v4Range('169.254.170.23/32', 'metadata', 'pod identity endpoint (EKS)'),
  v4Range('100.100.100.200/32', 'metadata', 'cloud metadata service (Alibaba)'),
  v4Range('255.255.255.255/32', 'broadcast', 'limited broadcast'),
  v4Range('0.0.0.0/8', 'unspecified', '"this network"'),
  v4Range('10.0.0.0/8', 'private', 'private network (RFC 1918)'),
  v4Range('100.64.0.0/10', 'shared-address', 'carrier-grade NAT shared space'),
  v4Range('127.0.0.0/8', 'loopback', 'loopback'),
  v4Range('169.254.0.0/16', 'link-local', 'link-local'),
  v4Range('172.16.0.0/12', 'private', 'private network (RFC 1918)'),
  v4Range('192.0.0.0/24', 'reserved', 'IETF protocol assignments'),
  v4Range('192.0.2.0/24', 'documentation', 'documentation (TEST-NET-1)'),
  v4Range('192.88.99.0/24', 'reserved', '6to4 relay anycast'),
  v4Range('192.168.0.0/16', 'private', 'private network (RFC 1918)'),
  v4Range('198.18.0.0/15', 'benchmarking', 'benchmarking'),
  v4Range('198.51.100.0/24', 'documentation', 'documentation (TEST-NET-2)'),
  v4Range('203.0.113.0/24', 'documentation', 'documentation (TEST-NET-3)'),
  v4Range('224.0.0.0/4', 'multicast', 'multicast'),
  v4Range('240.0.0.0/4', 'reserved', 'reserved (class E)'),
];

type Embedding = (value: bigint) => number | undefined;
const low32: Embedding = (value) => Number(value & 0xffffffffn);

interface EmbeddingRange extends Range<bigint> {
  embedded?: Embedding;
  /** Allowed when the embedded IPv4 address is: the range reaches exactly that address. */
  followsEmbedded?: boolean;
}

function embedding(
  cidr: string,
  name: string,
  embedded?: Embedding,
  followsEmbedded = false,
): EmbeddingRange {
  return {
    ...v6Range(cidr, 'ipv4-embedded', name),
    ...(embedded ? { embedded } : {}),
    ...(followsEmbedded ? { followsEmbedded } : {}),
  };
}

const IPV6_RANGES: readonly EmbeddingRange[] = [
  v6Range('fd00:ec2::254/128', 'metadata', 'cloud metadata service (EC2 IPv6)'),
  v6Range('::/128', 'unspecified', 'unspecified'),
  v6Range('::1/128', 'loopback', 'loopback'),
  embedding('::ffff:0:0/96', 'IPv4-mapped IPv6', low32),
  embedding('::ffff:0:0:0/96', 'IPv4-translated IPv6', low32),
  embedding('::/96', 'IPv4-compatible IPv6', low32),
  // The well-known NAT64 prefix is globally reachable (IANA special-purpose registry, RFC 6052): a
  // NAT64 gateway translates it to exactly the embedded IPv4 address, so that address decides. The
  // local-use prefix (RFC 8215) maps to whatever a local operator chose: refused.
  embedding('64:ff9b::/96', 'NAT64', low32, true),
  embedding('64:ff9b:1::/48', 'local-use NAT64'),
  embedding('2002::/16', '6to4', (value) => Number((value >> 80n) & 0xffffffffn)),
  embedding('2001::/32', 'Teredo', (value) => Number(~value & 0xffffffffn)),
  v6Range('100::/64', 'reserved', 'discard-only'),
  v6Range('2001:2::/48', 'benchmarking', 'benchmarking'),
  v6Range('2001:10::/28', 'reserved', 'ORCHID'),
  v6Range('2001:20::/28', 'reserved', 'ORCHIDv2'),
  v6Range('2001:db8::/32', 'documentation', 'documentation'),
  v6Range('3fff::/20', 'documentation', 'documentation'),
  v6Range('fc00::/7', 'unique-local', 'unique local'),
  v6Range('fe80::/10', 'link-local', 'link-local'),
  v6Range('fec0::/10', 'site-local', 'site-local (deprecated)'),
  v6Range('ff00::/8', 'multicast', 'multicast'),
];

const GLOBAL_UNICAST = v6Range('2000::/3', 'reserved', 'outside global unicast 2000::/3');

function classifyIPv4(value: number): AddressRefusal | undefined {
  for (const range of IPV4_RANGES) {
    if ((value & range.mask) >>> 0 === range.base) {
      return { category: range.category, description: `${range.name} (${range.cidr})` };
    }
  }
  return undefined;
}

/**
 * Classifies an IP address against the refused table. Returns undefined for a globally routable
 * address, or why it is refused.
 *
 * Contract: anything that is not a canonical IP address (including zone ids) is `invalid`. IPv6
 * outside 2000::/3 is `reserved`. IPv4 embedded in IPv6 is refused as `ipv4-embedded`, or as
 * `metadata` when the embedded address is a metadata address; the one exception is the well-known
 * NAT64 prefix `64:ff9b::/96`, allowed when the IPv4 address it embeds is allowed.
 *
 * @example
 * classifyAddress('10.1.2.3'); // { category: 'private', description: 'private network (RFC 1918) (10.0.0.0/8)' }
 * classifyAddress('93.184.215.14'); // undefined
 */
export function classifyAddress(address: string): AddressRefusal | undefined {
  const parsed = parseAddress(address);
  if (parsed === undefined) {
    return { category: 'invalid', description: 'not a plain IP address' };
  }
  if (parsed.family === 4) return classifyIPv4(parsed.value);
  const value = parsed.value;
  for (const range of IPV6_RANGES) {
    if ((value & range.mask) !== range.base) continue;
    const description = `${range.name} (${range.cidr})`;
    if (range.category !== 'ipv4-embedded') return { category: range.category, description };
    const embeddedValue = range.embedded?.(value);
    if (embeddedValue === undefined) return { category: 'ipv4-embedded', description };
    const embedded = formatIPv4(embeddedValue >>> 0);
    const inner = classifyIPv4(embeddedValue >>> 0);
    if (inner === undefined && range.followsEmbedded === true) return undefined;
    return {
      category: inner?.category === 'metadata' ? 'metadata' : 'ipv4-embedded',
      description: `${description} embedding ${embedded}${inner ? `, ${inner.description}` : ''}`,
      embedded,
    };
  }
  if ((value & GLOBAL_UNICAST.mask) !== GLOBAL_UNICAST.base) {
    return { category: 'reserved', description: 'reserved IPv6 (outside global unicast 2000::/3)' };
  }
  return undefined;
}
