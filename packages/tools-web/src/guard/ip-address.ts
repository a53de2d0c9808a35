import { isIPv4, isIPv6 } from 'node:net';

/** A parsed IP address: IPv4 as a 32-bit number, IPv6 as a 128-bit bigint. */
export type ParsedAddress = { family: 4; value: number } | { family: 6; value: bigint };

/**
 * Parses a canonical IP address string (dotted-quad IPv4, or IPv6 with optional embedded IPv4).
 * Returns undefined for anything else, including a zone id (`fe80::1%eth0`): callers refuse those.
 *
 * Contract: accepts only what `net.isIPv4`/`net.isIPv6` accept, so the legacy IPv4 spellings
 * (`0x7f.1`, `2130706433`) are not addresses here; the WHATWG URL parser normalises those first.
 */
export function parseAddress(text: string): ParsedAddress | undefined {
  if (isIPv4(text)) {
    const value = parseDottedQuad(text);
    return value === undefined ? undefined : { family: 4, value };
  }
  if (isIPv6(text) && !text.includes('%')) {
    const value = parseIPv6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  return undefined;
}

function parseDottedQuad(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

function parseGroups(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes('.')) {
      const v4 = parseDottedQuad(part);
      if (v4 === undefined) return undefined;
      groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
      groups.push(Number.parseInt(part, 16));
    }
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0] ?? '');
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array.from({ length: missing }, () => 0), ...tail];
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

/** Formats a 32-bit IPv4 value as a dotted quad. */
export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}
