import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebToolsConfigError } from '../errors/web-tools-config-error';
import { checkUrl } from './check-url';
import type { LookupAddress, LookupFunction } from './guard-policy';
import { formatIPv4 } from './ip-address';

/** A lookup that must not be reached: IP literals and names refused by name never resolve. */
const noLookup: LookupFunction = async (hostname) => {
  throw new Error(`unexpected lookup of ${hostname}`);
};

function staticLookup(table: Record<string, LookupAddress[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(lookup, { calls });
}

const literalSpellings: [string, string][] = [
  ['http://127.0.0.1/', 'loopback'],
  ['http://2130706433/', 'loopback'],
  ['http://0x7f000001/', 'loopback'],
  ['http://017700000001/', 'loopback'],
  ['http://0x7f.1/', 'loopback'],
  ['http://0177.0.0.1/', 'loopback'],
  ['http://127.1/', 'loopback'],
  ['http://127.0.1/', 'loopback'],
  ['http://127.0.0.1./', 'loopback'],
  ['http://①②⑦.0.0.1/', 'loopback'],
  ['http://0/', '"this network"'],
  ['http://0.0.0.0:8080/', '"this network"'],
  ['http://[::]/', 'unspecified'],
  ['http://[::1]/', 'loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['http://[::ffff:7f00:1]/', 'IPv4-mapped'],
  ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['http://[::ffff:0:7f00:1]/', 'IPv4-translated'],
  ['http://[::127.0.0.1]/', 'IPv4-compatible'],
  ['http://[64:ff9b::7f00:1]/', 'NAT64'],
  ['http://[64:ff9b::a00:1]/', 'NAT64 (64:ff9b::/96) embedding 10.0.0.1, private network'],
  ['http://[64:ff9b::192.168.1.1]/', 'embedding 192.168.1.1, private network'],
  ['http://[64:ff9b::6440:1]/', 'embedding 100.64.0.1, carrier-grade NAT'],
  ['http://[64:ff9b:1::808:808]/', 'local-use NAT64 (64:ff9b:1::/48)'],
  ['http://[64:ff9b:1::1]/', 'local-use NAT64'],
  ['http://[2002:7f00:1::]/', '6to4'],
  ['http://10.0.0.1/', 'private'],
  ['http://012.0.0.1/', 'private'],
  ['http://0xac.0x10.1.1/', 'private'],
  ['http://3232235777/', 'private'],
  ['http://100.64.0.1/', 'carrier-grade NAT'],
  ['http://169.254.1.1/', 'link-local'],
  ['http://224.0.0.1/', 'multicast'],
  ['http://240.0.0.1/', 'reserved'],
  ['http://255.255.255.255/', 'broadcast'],
  ['http://192.0.2.1/', 'documentation'],
  ['http://198.18.0.1/', 'benchmarking'],
  ['http://[fc00::1]/', 'unique local'],
  ['http://[fe80::1]/', 'link-local'],
  ['http://[fec0::1]/', 'site-local'],
  ['http://[ff02::1]/', 'multicast'],
  ['http://[2001:db8::1]/', 'documentation'],
  ['HTTP://[FE80::1]:8080/', 'link-local'],
];

const metadataSpellings = [
  'http://169.254.169.254/latest/meta-data/',
  'http://0xa9fea9fe/',
  'http://0xA9.0xFE.0xA9.0xFE/',
  'http://2852039166/',
  'http://0251.0376.0251.0376/',
  'http://169.254.43518/',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:a9fe:a9fe::]/',
  'http://[::169.254.169.254]/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.GOOGLE.INTERNAL./',
  'http://ｍｅｔａｄａｔａ.google.internal/',
  'http://metadata/',
];

describe('checkUrl: IP literals in every spelling', () => {
  it.each(literalSpellings)('refuses %s (%s)', async (url, why) => {
    const result = await checkUrl(url, { lookup: noLookup });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(why);
  });

  it.each(metadataSpellings)('refuses metadata %s, even with allowPrivateNetwork', async (url) => {
    for (const allowPrivateNetwork of [false, true]) {
      const result = await checkUrl(url, { lookup: noLookup, allowPrivateNetwork });
      expect(result.ok).toBe(false);
    }
  });

  it('words the refusal as the documented example', async () => {
    expect(await checkUrl('http://0x7f.1/')).toEqual({
      ok: false,
      reason: '127.0.0.1 refused: 127.0.0.1 is a refused address: loopback (127.0.0.0/8)',
    });
  });

  it('accepts public literals and returns the normalised URL and address', async () => {
    expect(await checkUrl('http://8.8.8.8/a?b#c', { lookup: noLookup })).toEqual({
      ok: true,
      url: 'http://8.8.8.8/a?b#c',
      addresses: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(await checkUrl('https://[2606:4700::1111]:8443/', { lookup: noLookup })).toEqual({
      ok: true,
      url: 'https://[2606:4700::1111]:8443/',
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
    for (const url of [
      'http://172.32.0.1/',
      'http://100.128.0.1/',
      'http://11.0.0.1/',
      'http://192.169.0.1/',
    ]) {
      expect((await checkUrl(url, { lookup: noLookup })).ok).toBe(true);
    }
  });

  it('accepts the well-known NAT64 prefix embedding a public IPv4 address (globally reachable)', async () => {
    expect(await checkUrl('http://[64:ff9b::808:808]/', { lookup: noLookup })).toEqual({
      ok: true,
      url: 'http://[64:ff9b::808:808]/',
      addresses: [{ address: '64:ff9b::808:808', family: 6 }],
    });
    // The WHATWG parser turns the dotted spelling into the same address.
    expect((await checkUrl('http://[64:ff9b::1.1.1.1]/', { lookup: noLookup })).ok).toBe(true);
  });

  it('refuses a name resolving to NAT64 of a private address, even with a public address beside it', async () => {
    const lookup = staticLookup({
      'nat64.example': [
        { address: '64:ff9b::808:808', family: 6 },
        { address: '64:ff9b::a9fe:a9fe', family: 6 },
      ],
    });
    const result = await checkUrl('http://nat64.example/', { lookup });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('169.254.169.254');
    const allowed = await checkUrl('http://nat64.example/', {
      lookup: staticLookup({ 'nat64.example': [{ address: '64:ff9b::808:808', family: 6 }] }),
    });
    expect(allowed.ok).toBe(true);
  });
});

describe('checkUrl: URL shape', () => {
  it.each([
    ['file:///etc/passwd', 'only http and https'],
    ['ftp://8.8.8.8/', 'only http and https'],
    ['javascript:alert(1)', 'only http and https'],
    ['gopher://8.8.8.8:70/', 'only http and https'],
    ['http://user:secret@8.8.8.8/', 'credentials'],
    ['http://user@8.8.8.8/', 'credentials'],
    ['/relative/path', 'not a valid absolute URL'],
    ['http://[fe80::1%25eth0]/', 'not a valid absolute URL'],
    ['http://1.1.1.1.1/', 'not a valid absolute URL'],
    [`http://8.8.8.8/${'a'.repeat(9000)}`, 'longer than'],
  ])('refuses %s', async (url, why) => {
    const result = await checkUrl(url, { lookup: noLookup });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(why) });
  });
});

describe('checkUrl: host names', () => {
  it.each([
    'http://localhost/',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://ｌｏｃａｌｈｏｓｔ/',
    'http://api.localhost/',
    'http://printer.local/',
    'http://db.internal/',
    'http://nas.home.arpa/',
  ])('refuses the local name %s without resolving it', async (url) => {
    const result = await checkUrl(url, { lookup: noLookup });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('local host name') });
  });

  it('resolves other names and refuses when any address is refused', async () => {
    const lookup = staticLookup({
      'mixed.test': [
        { address: '93.184.215.14', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ],
      'v6.test': [{ address: 'fd12::1', family: 6 }],
      'mapped.test': [{ address: '::ffff:192.168.1.1', family: 6 }],
      'zone.test': [{ address: 'fe80::1%eth0', family: 6 }],
      'empty.test': [],
    });
    expect(await checkUrl('http://mixed.test/', { lookup })).toEqual({
      ok: false,
      reason:
        'mixed.test refused: "mixed.test" resolves to 10.1.2.3, a refused address: private network (RFC 1918) (10.0.0.0/8)',
    });
    for (const name of ['v6.test', 'mapped.test', 'zone.test', 'empty.test', 'missing.test']) {
      expect((await checkUrl(`http://${name}/`, { lookup })).ok).toBe(false);
    }
    expect(lookup.calls).toEqual([
      'mixed.test',
      'v6.test',
      'mapped.test',
      'zone.test',
      'empty.test',
      'missing.test',
    ]);
  });

  it('reports a failed lookup with its code', async () => {
    const result = await checkUrl('http://missing.test/', { lookup: staticLookup({}) });
    expect(result).toEqual({
      ok: false,
      reason: 'missing.test refused: could not resolve "missing.test" (ENOTFOUND)',
    });
  });

  it('accepts a name whose every address is public, returning them all', async () => {
    const addresses: LookupAddress[] = [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ];
    const lookup = staticLookup({ 'example.test.': addresses, 'xn--bcher-kva.test': addresses });
    expect(await checkUrl('https://Example.Test./page', { lookup })).toEqual({
      ok: true,
      url: 'https://example.test./page',
      addresses,
    });
    // IDN names reach the resolver in their ASCII (punycode) form.
    expect((await checkUrl('https://bücher.test/', { lookup })).ok).toBe(true);
  });
});

describe('checkUrl: allowPrivateNetwork and allowedTargets', () => {
  it('opens local networks with allowPrivateNetwork but keeps other classes refused', async () => {
    const lookup = staticLookup({ localhost: [{ address: '127.0.0.1', family: 4 }] });
    for (const url of [
      'http://127.0.0.1/',
      'http://10.0.0.1/',
      'http://[fd00::1]/',
      'http://100.64.0.1/',
      'http://localhost/',
    ]) {
      expect((await checkUrl(url, { lookup, allowPrivateNetwork: true })).ok).toBe(true);
    }
    for (const url of [
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://192.0.2.1/',
      'http://[::ffff:10.0.0.1]/',
    ]) {
      expect((await checkUrl(url, { lookup: noLookup, allowPrivateNetwork: true })).ok).toBe(false);
    }
  });

  it('opens exactly the allowed address and port', async () => {
    const options = { lookup: noLookup, allowedTargets: ['127.0.0.1:8080', '[::1]:9090'] };
    expect((await checkUrl('http://127.0.0.1:8080/', options)).ok).toBe(true);
    expect((await checkUrl('http://0x7f.1:8080/', options)).ok).toBe(true);
    expect((await checkUrl('http://[::1]:9090/', options)).ok).toBe(true);
    expect((await checkUrl('http://127.0.0.1:8081/', options)).ok).toBe(false);
    expect((await checkUrl('http://127.0.0.2:8080/', options)).ok).toBe(false);
    expect((await checkUrl('http://127.0.0.1/', options)).ok).toBe(false);
    expect((await checkUrl('http://localhost:8080/', options)).ok).toBe(false);
  });

  it('throws a configuration error naming a bad option', async () => {
    for (const [options, field] of [
      [{ allowedTargets: ['127.0.0.1'] }, 'allowedTargets[0]'],
      [{ allowedTargets: ['8.8.8.8:80', 'example.com:80'] }, 'allowedTargets[1]'],
      [{ allowedTargets: ['169.254.169.254:80'] }, 'allowedTargets[0]'],
      [{ allowedTargets: ['127.0.0.1:70000'] }, 'allowedTargets[0]'],
      [{ allowPrivateNetwork: 'yes' }, 'allowPrivateNetwork'],
      [{ lookup: 'dns' }, 'lookup'],
    ] as const) {
      const error = await checkUrl('http://8.8.8.8/', options as never).catch((caught: unknown) => caught);
      expect(WebToolsConfigError.isInstance(error)).toBe(true);
      expect((error as WebToolsConfigError).field).toBe(field);
    }
  });
});

/** Every way Node's URL parser spells one IPv4 address. */
function spellings(value: number): string[] {
  const octets = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff] as const;
  const [a, b, c, d] = octets;
  return [
    String(value),
    `0x${value.toString(16)}`,
    `0${value.toString(8)}`,
    octets.map((octet) => `0x${octet.toString(16)}`).join('.'),
    octets.map((octet) => `0${octet.toString(8)}`).join('.'),
    `${a}.${(b << 16) | (c << 8) | d}`,
    `${a}.${b}.${(c << 8) | d}`,
    `${formatIPv4(value)}.`,
  ];
}

describe('checkUrl properties', () => {
  it('gives every IPv4 spelling the verdict of its dotted form', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0xffffffff }), async (value) => {
        const dotted = await checkUrl(`http://${formatIPv4(value)}/`, { lookup: noLookup });
        for (const spelling of spellings(value)) {
          const result = await checkUrl(`http://${spelling}/`, { lookup: noLookup });
          if (result.ok !== dotted.ok) return false;
          if (result.ok && dotted.ok && result.url !== dotted.url) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every private IPv4 address in every spelling and embedding', async () => {
    const privateAddress = fc.oneof(
      fc.integer({ min: 0x0a000000, max: 0x0affffff }),
      fc.integer({ min: 0xac100000, max: 0xac1fffff }),
      fc.integer({ min: 0xc0a80000, max: 0xc0a8ffff }),
      fc.integer({ min: 0x7f000000, max: 0x7fffffff }),
    );
    await fc.assert(
      fc.asyncProperty(privateAddress, async (value) => {
        const hex = `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
        const urls = [
          ...spellings(value).map((spelling) => `http://${spelling}/`),
          `http://[::ffff:${formatIPv4(value)}]/`,
          `http://[::ffff:${hex}]/`,
          `http://[64:ff9b::${hex}]/`,
          `http://[2002:${hex}::]/`,
          `http://[::${formatIPv4(value)}]/`,
        ];
        for (const url of urls) {
          if ((await checkUrl(url, { lookup: noLookup })).ok) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });
});
