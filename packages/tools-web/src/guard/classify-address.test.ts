import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AddressCategory, classifyAddress } from './classify-address';
import { formatIPv4 } from './ip-address';

const refusedIPv4: [string, AddressCategory][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['100.64.0.0', 'shared-address'],
  ['100.127.255.255', 'shared-address'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.55', 'documentation'],
  ['192.88.99.1', 'reserved'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
];

const refusedIPv6: [string, AddressCategory][] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'ipv4-embedded'],
  ['::ffff:7f00:1', 'ipv4-embedded'],
  ['::ffff:8.8.8.8', 'ipv4-embedded'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:0:7f00:1', 'ipv4-embedded'],
  ['::7f00:1', 'ipv4-embedded'],
  ['::127.0.0.1', 'ipv4-embedded'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::7f00:1', 'ipv4-embedded'],
  ['64:ff9b::a00:1', 'ipv4-embedded'],
  ['64:ff9b::c0a8:101', 'ipv4-embedded'],
  ['64:ff9b:1::1', 'ipv4-embedded'],
  ['64:ff9b:1::808:808', 'ipv4-embedded'],
  ['2002:a9fe:a9fe::', 'metadata'],
  ['2002:7f00:1::1', 'ipv4-embedded'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'ipv4-embedded'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'reserved'],
  ['fc00::1', 'unique-local'],
  ['fdff:ffff::1', 'unique-local'],
  ['fd00:ec2::254', 'metadata'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['1fff:ffff::1', 'reserved'],
  ['4000::1', 'reserved'],
];

// The nearest addresses outside each refused range: they must stay reachable.
const allowedNeighbours = [
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.1',
  '191.255.255.255',
  '192.0.1.255',
  '192.0.3.0',
  '192.88.98.255',
  '192.88.100.0',
  '192.167.255.255',
  '192.169.0.1',
  '198.17.255.255',
  '198.20.0.0',
  '198.51.99.255',
  '198.51.101.0',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255',
  '8.8.8.8',
  '2000::1',
  '2001:1::1',
  '2001:db7:ffff::1',
  '2001:db9::1',
  '2001:4860:4860::8888',
  '2003::1',
  '2606:4700::1111',
  '3fff:1000::1',
  '3ffe:ffff::1',
  // The well-known NAT64 prefix embedding a public IPv4 address is globally reachable.
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b::b00:1',
];

describe('refused address table', () => {
  it.each(refusedIPv4)('refuses %s as %s', (address, category) => {
    expect(classifyAddress(address)?.category).toBe(category);
  });

  it.each(refusedIPv6)('refuses %s as %s', (address, category) => {
    expect(classifyAddress(address)?.category).toBe(category);
  });

  it.each(allowedNeighbours)('allows the nearest neighbour %s', (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });

  it('names the embedded IPv4 address of transition forms', () => {
    expect(classifyAddress('::ffff:7f00:1')?.embedded).toBe('127.0.0.1');
    expect(classifyAddress('2002:a9fe:a9fe::')?.embedded).toBe('169.254.169.254');
    expect(classifyAddress('64:ff9b::a00:1')?.description).toContain('10.0.0.1');
    // Teredo stores the client address bit-inverted in the last 32 bits.
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2')?.embedded).toBe('192.0.2.45');
  });

  it('treats zone ids and non-canonical spellings as invalid, not as addresses', () => {
    for (const text of ['fe80::1%eth0', '0x7f.1', '2130706433', '127.1', '', 'example.com', '1.2.3.256']) {
      expect(classifyAddress(text)?.category).toBe('invalid');
    }
  });
});

const ipv4 = fc.integer({ min: 0, max: 0xffffffff });

function inRange(cidr: string) {
  const [base = '', bits = '32'] = cidr.split('/');
  const [a = 0, b = 0, c = 0, d = 0] = base.split('.').map(Number);
  const start = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  const size = 2 ** (32 - Number(bits));
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => formatIPv4(start + offset));
}

/** An IPv4 address as a dotted quad and as the two hex groups an IPv6 embedding writes it in. */
function ipv4Forms(value: number): { dotted: string; high: string; low: string } {
  return { dotted: formatIPv4(value), high: (value >>> 16).toString(16), low: (value & 0xffff).toString(16) };
}

describe('refused address properties', () => {
  it.each([
    ['10.0.0.0/8', 'private'],
    ['172.16.0.0/12', 'private'],
    ['192.168.0.0/16', 'private'],
    ['127.0.0.0/8', 'loopback'],
    ['100.64.0.0/10', 'shared-address'],
    ['198.18.0.0/15', 'benchmarking'],
    ['224.0.0.0/4', 'multicast'],
  ] as const)('refuses every address of %s as %s', (cidr, category) => {
    fc.assert(fc.property(inRange(cidr), (address) => classifyAddress(address)?.category === category));
  });

  it('refuses every IPv4 address in every IPv6 embedding but well-known NAT64, naming it', () => {
    fc.assert(
      fc.property(ipv4, (value) => {
        const { dotted, high, low } = ipv4Forms(value);
        const forms = [`::ffff:${dotted}`, `::ffff:${high}:${low}`, `2002:${high}:${low}::1`];
        return forms.every((form) => {
          const refusal = classifyAddress(form);
          return refusal !== undefined && refusal.embedded === dotted;
        });
      }),
    );
  });

  it('gives well-known NAT64 the verdict of the IPv4 address it embeds, and refuses local-use NAT64', () => {
    fc.assert(
      fc.property(ipv4, (value) => {
        const { dotted, high, low } = ipv4Forms(value);
        const inner = classifyAddress(dotted);
        const nat64 = classifyAddress(`64:ff9b::${high}:${low}`);
        const agrees =
          inner === undefined
            ? nat64 === undefined
            : nat64 !== undefined &&
              nat64.embedded === dotted &&
              nat64.category === (inner.category === 'metadata' ? 'metadata' : 'ipv4-embedded');
        return agrees && classifyAddress(`64:ff9b:1::${high}:${low}`)?.category === 'ipv4-embedded';
      }),
    );
  });

  it('classifies an embedded metadata address as metadata in every embedding', () => {
    for (const form of [
      '::ffff:169.254.169.254',
      '64:ff9b::169.254.169.254',
      '2002:a9fe:a9fe:1::',
      '::169.254.169.254',
    ]) {
      expect(classifyAddress(form)?.category).toBe('metadata');
    }
  });

  it('refuses every IPv6 address outside global unicast', () => {
    const outside = fc
      .tuple(
        fc.integer({ min: 0, max: 0xffff }),
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }),
      )
      .filter(([first]) => first < 0x2000 || first >= 0x4000)
      .map(([first, rest]) => [first, ...rest].map((group) => group.toString(16)).join(':'));
    fc.assert(fc.property(outside, (address) => classifyAddress(address) !== undefined));
  });
});
