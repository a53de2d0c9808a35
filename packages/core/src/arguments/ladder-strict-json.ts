// The argument ladder's steps 1 and 3 (see `parseToolArguments`): the caps before any parsing, and
// strict JSON, the fast path for clean input: one scan, `JSON.parse`, and a member count.
import { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_ARGUMENT_DEPTH } from './argument-limits';
import { LadderRefusal } from './ladder-refusal';
import { parseTolerantJSON } from './tolerant-json-parser';

function utf8Length(text: string): number {
  if (typeof Buffer !== 'undefined') return Buffer.byteLength(text, 'utf8');
  return new TextEncoder().encode(text).length;
}

/** Step 1: the size cap, before any parsing. */
export function checkSize(raw: string): void {
  // A UTF-16 code unit is at least one UTF-8 byte and at most three: count only when it matters.
  if (raw.length * 3 <= MAX_TOOL_ARGUMENT_BYTES) return;
  const bytes = raw.length > MAX_TOOL_ARGUMENT_BYTES ? raw.length : utf8Length(raw);
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) {
    throw new LadderRefusal(
      'too-large',
      `The arguments are larger than ${MAX_TOOL_ARGUMENT_BYTES} bytes (1 MB), so they were not read and nothing was run. Send smaller arguments, e.g. split large content over several calls.`,
    );
  }
}

/**
 * One pass over the text before any parsing: the nesting depth (refused past the cap) and the
 * number of `:` outside double-quoted strings, which for strict JSON is the number of members.
 * Returns -1 instead when the text cannot be strict JSON (open brackets or an open string at the
 * end; outside strings a quote other than `"`, a comment, a backslash, a capital letter, anything
 * non-ASCII), so `JSON.parse` and the cost of its exception are skipped. Strings are skipped with `indexOf`: long values cost little.
 */
export function scanStructure(text: string): number {
  let depth = 0;
  let colons = 0;
  let strict = true;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      let close = text.indexOf('"', index + 1);
      while (close !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes += 1;
        if (backslashes % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      if (close === -1) {
        // An unterminated string: JSON.parse would fail.
        strict = false;
        break;
      }
      index = close + 1;
      continue;
    }
    if (code === 123 || code === 91) {
      depth += 1;
      if (depth > MAX_TOOL_ARGUMENT_DEPTH) {
        throw new LadderRefusal(
          'too-deep',
          `The arguments nest deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels, so they were not read. Send a flatter object.`,
        );
      }
    } else if (code === 125 || code === 93) {
      if (depth > 0) depth -= 1;
    } else if (code === 58) {
      colons += 1;
    } else if (
      code === 39 ||
      code === 47 ||
      code === 92 ||
      code === 96 ||
      code === 60 ||
      code >= 128 ||
      (code >= 65 && code <= 90 && code !== 69)
    ) {
      strict = false;
    }
    index += 1;
  }
  // Unbalanced brackets (a cut-off object, say) rule strict JSON out as well.
  return strict && depth === 0 ? colons : -1;
}

/** What `countMembers` returns for a value holding a number `JSON.parse` read as ±Infinity. */
const NON_FINITE = -1;

/**
 * Members in all objects of a parsed value (depth is bounded by the scan), or `NON_FINITE` when
 * any number in it is not finite (`1e999` parses to Infinity).
 */
function countMembers(value: object): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const members = membersWithin(item);
      if (members === NON_FINITE) return NON_FINITE;
      count += members;
    }
    return count;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const members = membersWithin(record[key]);
    if (members === NON_FINITE) return NON_FINITE;
    count += 1 + members;
  }
  return count;
}

/** `countMembers` of one array item or member value: 0 for a finite scalar, `NON_FINITE` for ±Infinity. */
function membersWithin(item: unknown): number {
  if (typeof item === 'object' && item !== null) return countMembers(item);
  return typeof item === 'number' && !Number.isFinite(item) ? NON_FINITE : 0;
}

/** What `parseStrict` returns for text that is not strict JSON: the ladder goes on to its next steps. */
export const NOT_STRICT: unique symbol = Symbol('not strict JSON');

/**
 * Step 3: strict `JSON.parse`, refusing the duplicate keys it would silently collapse and the numbers
 * it reads as ±Infinity (the tolerant reader names where). `colons` is `scanStructure`'s count.
 */
export function parseStrict(text: string, colons: number, truncatedByLimit: boolean): unknown {
  if (colons < 0) return NOT_STRICT;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_STRICT;
  }
  if (typeof value === 'object' && value !== null) {
    const members = countMembers(value);
    if (members === NON_FINITE) {
      // The tolerant reader knows where the number is and refuses it by its JSON pointer.
      parseTolerantJSON(text, { allowRootClose: false, truncatedByLimit });
      throw new LadderRefusal(
        'non-finite-number',
        'A number is not finite (it overflows). Send a smaller number.',
      );
    }
    if (members !== colons) {
      // Fewer members than `:` means JSON.parse dropped a duplicate: the tolerant reader names it.
      parseTolerantJSON(text, { allowRootClose: false, truncatedByLimit });
      throw new LadderRefusal(
        'duplicate-key',
        'A key appears more than once in an object. Send each key once.',
      );
    }
  }
  return value;
}
