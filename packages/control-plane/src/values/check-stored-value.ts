import { escapePointerSegment } from '@switchyard/core/internal';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${bytes} B`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** What PostgreSQL cannot store in `text` (why), or undefined when it can. */
function characterProblem(text: string): string | undefined {
  // PostgreSQL refuses U+0000 in text and jsonb; a lone surrogate cannot be encoded as UTF-8.
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    return `contains a NUL character (U+0000) at position ${nul}, which PostgreSQL cannot store; remove it`;
  }
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate, which is not valid Unicode text';
  return undefined;
}

function checkCharacters(field: string, text: string): void {
  const problem = characterProblem(text);
  if (problem !== undefined) throw new ControlPlaneInputError(field, problem);
}

/**
 * Checks a string before it is written to a text column.
 *
 * Contract: throws `ControlPlaneInputError` naming `field` for a non-string, an empty string (unless
 * `allowEmpty`), a NUL character, a lone surrogate, or more than `maxBytes` of UTF-8.
 */
export function checkStoredText(
  field: string,
  value: unknown,
  options: { maxBytes: number; allowEmpty?: boolean },
): string {
  if (typeof value !== 'string')
    throw new ControlPlaneInputError(field, `must be a string, got ${typeof value}`);
  if (!options.allowEmpty && value.trim() === '')
    throw new ControlPlaneInputError(field, 'must not be empty');
  checkCharacters(field, value);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > options.maxBytes) {
    throw new ControlPlaneInputError(
      field,
      `is ${formatBytes(bytes)}, over the limit of ${formatBytes(options.maxBytes)}`,
    );
  }
  return value;
}

/** The first string or key PostgreSQL cannot store in a parsed JSON value: where, and why. */
function jsonStringProblem(value: unknown, at: string): { pointer: string; message: string } | undefined {
  if (typeof value === 'string') {
    const message = characterProblem(value);
    return message === undefined ? undefined : { pointer: at || '/', message };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = jsonStringProblem(item, `${at}/${index}`);
      if (problem !== undefined) return problem;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = characterProblem(key);
      // The key itself is what cannot be stored, so it is named escaped, not put in the pointer.
      if (keyProblem !== undefined) {
        return { pointer: at || '/', message: `the key ${JSON.stringify(key)} ${keyProblem}` };
      }
      const problem = jsonStringProblem(item, `${at}/${escapePointerSegment(key)}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** Thrown out of `JSON.stringify`'s replacer at the first number JSON cannot hold. */
class NonFiniteNumber {
  constructor(
    readonly pointer: string,
    readonly value: number,
  ) {}
}

/**
 * `JSON.stringify`, except that a number JSON cannot hold (NaN, Infinity, -Infinity) throws
 * `NonFiniteNumber` where it is: `JSON.stringify` would quietly write `null`, so a model's
 * `{"price": 1e999}` (parsed as Infinity) would pass a `number` check and be stored as null.
 */
function stringifyFinite(value: unknown): string | undefined {
  // The replacer sees each value after toJSON, with its holder as `this`: each object's pointer is
  // remembered when it is visited, so a child's pointer is its holder's plus its key.
  const pointers = new Map<object, string>();
  return JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
    const holder = pointers.get(this as object);
    const at = holder === undefined ? '' : `${holder}/${escapePointerSegment(key)}`;
    if (typeof item === 'number' && !Number.isFinite(item)) throw new NonFiniteNumber(at || '/', item);
    if (typeof item === 'object' && item !== null) pointers.set(item, at);
    return item;
  });
}

/** The outcome of `checkStoredJson`. */
export type StoredJsonCheck =
  | {
      /** The value can be stored. */
      ok: true;
      /** The JSON text to bind as `$n::jsonb`. */
      text: string;
      /** That text parsed again: exactly the value that will be stored (and read back). */
      value: unknown;
    }
  | {
      /** The value cannot be stored. */
      ok: false;
      /** The JSON pointer of the part at fault (`/price`), when one part is. */
      pointer?: string;
      /** What is wrong there. */
      message: string;
      /** Both in one line: `/price: ...`, or just the message. */
      reason: string;
    };

function refusal(message: string, pointer?: string): StoredJsonCheck {
  return pointer === undefined
    ? { ok: false, message, reason: message }
    : { ok: false, pointer, message, reason: `${pointer}: ${message}` };
}

/**
 * Checks that a value can be stored as jsonb exactly as given, and returns the JSON text and its
 * parsed round trip. Refused: a value JSON cannot represent (undefined, a function, a BigInt, a
 * cycle), a number JSON cannot hold (NaN, Infinity: `1e999` arrives as Infinity), a NUL character or
 * lone surrogate in any string or key, JSON text over `maxBytes`.
 *
 * Contract: never throws; linear in the size of the value.
 */
export function checkStoredJson(value: unknown, options: { maxBytes: number }): StoredJsonCheck {
  let text: string | undefined;
  try {
    text = stringifyFinite(value);
  } catch (error) {
    if (error instanceof NonFiniteNumber) {
      return refusal(
        `${String(error.value)} is not a finite number, and JSON has no Infinity or NaN (a literal such as 1e999 overflows to Infinity): use a finite number`,
        error.pointer,
      );
    }
    return refusal(`is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (text === undefined) return refusal(`is not JSON-serialisable (${typeof value})`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > options.maxBytes) {
    return refusal(`is ${formatBytes(bytes)} of JSON, over the limit of ${formatBytes(options.maxBytes)}`);
  }
  // Check the strings themselves (keys included), not the escapes JSON.stringify wrote for them.
  const parsed = JSON.parse(text) as unknown;
  const problem = jsonStringProblem(parsed, '');
  if (problem !== undefined) return refusal(problem.message, problem.pointer);
  return { ok: true, text, value: parsed };
}

/**
 * Serialises a value for a jsonb column and checks it first (see `checkStoredJson`).
 *
 * Contract: returns the JSON text to bind as `$n::jsonb`. Throws `ControlPlaneInputError` naming
 * `field` (and the JSON pointer inside it) for a value JSON cannot represent (undefined, a function,
 * a BigInt, a cycle), a non-finite number, a NUL character or lone surrogate in any string or key,
 * or JSON text over `maxBytes`.
 */
export function toStoredJson(field: string, value: unknown, options: { maxBytes: number }): string {
  const checked = checkStoredJson(value, options);
  if (!checked.ok) throw new ControlPlaneInputError(field, checked.reason);
  return checked.text;
}

/**
 * Makes model-made text storable: replaces what PostgreSQL cannot hold in a text column (U+0000, lone
 * UTF-16 surrogates) with U+FFFD. For records of what happened, which must not fail over a character.
 */
export function toStorableText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}

/**
 * The JSON text of `value` with what jsonb cannot hold (`\u0000` and lone-surrogate escapes, in keys
 * and values) replaced by `\ufffd`; `undefined` for a value JSON cannot represent.
 */
export function toStorableJson(value: unknown): string | undefined {
  const text = JSON.stringify(value);
  // JSON.stringify writes a pair as the characters themselves and escapes only a lone surrogate;
  // an escaped backslash is consumed first so `\\u0000` (a literal backslash) is left alone.
  return text?.replace(/\\\\|\\u0000|\\ud[89a-f][0-9a-f]{2}/gi, (match) =>
    match === '\\\\' ? match : '\\ufffd',
  );
}
