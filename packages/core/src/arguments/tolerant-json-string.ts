import type { ArgumentRepair } from './argument-ids';
import {
  APOSTROPHE,
  BACKSLASH,
  isHex,
  LEFT_DOUBLE_CURLY,
  LEFT_SINGLE_CURLY,
  QUOTE,
  RIGHT_DOUBLE_CURLY,
  RIGHT_SINGLE_CURLY,
  SLASH,
  SPACE,
} from './json-characters';
import { LadderRefusal } from './ladder-refusal';

/** What the string reader needs of the tolerant parser: the text, where it stands, and how it refuses. */
export interface StringReaderHost {
  /** The whole input. */
  readonly text: string;
  /** The index of the opening quote; the reader leaves it after the closing one. */
  position: number;
  /** The repairs the reading needed. */
  readonly repairs: Set<ArgumentRepair>;
  /** Refuses input that ends `where` (inside a string or key). */
  truncated(where: string): never;
  /** ` at <pointer>` for messages, or `''` at the root. */
  where(): string;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  "'": "'",
};

/**
 * Reads one quoted string or key of the tolerant reader (step 6): double, single or curly quotes;
 * raw control characters kept; invalid escapes kept literally when they are the string's only
 * escapes besides `\\` and `\"`. Refuses a string that mixes invalid and valid escapes, an
 * incomplete `\u` escape, and a string the input ends inside. One pass to find the end, and a
 * second over the string only when it has escapes.
 */
export function readTolerantString(host: StringReaderHost, isKey: boolean): string {
  const { text } = host;
  const open = text.charCodeAt(host.position);
  let closeA = QUOTE;
  let closeB = QUOTE;
  if (open === APOSTROPHE) {
    closeA = APOSTROPHE;
    closeB = APOSTROPHE;
    host.repairs.add('single-quoted-strings');
  } else if (open === LEFT_DOUBLE_CURLY || open === RIGHT_DOUBLE_CURLY) {
    closeA = LEFT_DOUBLE_CURLY;
    closeB = RIGHT_DOUBLE_CURLY;
    host.repairs.add('curly-quotes');
  } else if (open === LEFT_SINGLE_CURLY || open === RIGHT_SINGLE_CURLY) {
    closeA = LEFT_SINGLE_CURLY;
    closeB = RIGHT_SINGLE_CURLY;
    host.repairs.add('curly-quotes');
  }
  const where = isKey ? 'inside a key' : 'inside a string';
  const start = host.position + 1;
  let index = start;
  let escapes = 0;
  let escapedApostrophes = 0;
  let otherEscape: string | undefined;
  let invalidEscape: string | undefined;
  let controls = 0;
  for (;;) {
    if (index >= text.length) host.truncated(where);
    const code = text.charCodeAt(index);
    if (code === closeA || code === closeB) break;
    if (code === BACKSLASH) {
      if (index + 1 >= text.length) host.truncated(where);
      const next = text.charCodeAt(index + 1);
      escapes += 1;
      if (next === QUOTE || next === BACKSLASH || next === closeA || next === closeB) {
        index += 2;
      } else if (next === APOSTROPHE) {
        if (open === QUOTE) escapedApostrophes += 1;
        index += 2;
      } else if (next === 117) {
        let hex = 0;
        while (hex < 4 && index + 2 + hex < text.length && isHex(text.charCodeAt(index + 2 + hex))) hex += 1;
        if (hex === 4) {
          otherEscape ??= text.slice(index, index + 6);
          index += 6;
        } else if (index + 2 + hex >= text.length) {
          host.truncated(where);
        } else if (hex > 0) {
          // `\u00e`: a code point with digits missing. Guessing the character, or keeping the text,
          // would both invent meaning.
          throw new LadderRefusal(
            'incomplete-unicode-escape',
            `The string${host.where()} has an incomplete unicode escape (${text.slice(index, index + 2 + hex)}): \\u needs exactly four hex digits. Send the character itself, or escape a literal backslash as \\\\.`,
          );
        } else {
          invalidEscape ??= text.slice(index, index + 2);
          index += 2;
        }
      } else if (
        next === SLASH ||
        next === 98 ||
        next === 102 ||
        next === 110 ||
        next === 114 ||
        next === 116
      ) {
        otherEscape ??= text.slice(index, index + 2);
        index += 2;
      } else {
        invalidEscape ??= String.fromCodePoint(BACKSLASH, text.codePointAt(index + 1) ?? next);
        index += 2;
      }
      continue;
    }
    if (code < SPACE) controls += 1;
    index += 1;
  }
  host.position = index + 1;
  if (invalidEscape !== undefined && otherEscape !== undefined) {
    throw new LadderRefusal(
      'ambiguous-escapes',
      `The string${host.where()} mixes an invalid escape (${invalidEscape}) with a valid one (${otherEscape}), so it is unclear which backslashes are literal. Escape every literal backslash as \\\\.`,
    );
  }
  if (controls > 0) host.repairs.add('escape-control-characters');
  if (escapedApostrophes > 0) host.repairs.add('escaped-apostrophe');
  if (invalidEscape !== undefined) host.repairs.add('double-invalid-escapes');
  if (escapes === 0) return text.slice(start, index);
  return decodeString(text, start, index);
}

function decodeString(text: string, start: number, end: number): string {
  let decoded = '';
  let segment = start;
  let index = start;
  while (index < end) {
    if (text.charCodeAt(index) !== BACKSLASH) {
      index += 1;
      continue;
    }
    decoded += text.slice(segment, index);
    const next = text[index + 1] ?? '';
    const simple = SIMPLE_ESCAPES[next];
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
      decoded += String.fromCharCode(Number.parseInt(text.slice(index + 2, index + 6), 16));
      index += 6;
    } else if (simple !== undefined) {
      decoded += simple;
      index += 2;
    } else if (next === '\u201c' || next === '\u201d' || next === '\u2018' || next === '\u2019') {
      decoded += next;
      index += 2;
    } else {
      // An invalid escape in a string with no other escapes: the backslash was meant literally.
      decoded += `\\${next}`;
      index += 2;
    }
    segment = index;
  }
  return decoded + text.slice(segment, end);
}
