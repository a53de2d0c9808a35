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

function checkCharacters(field: string, text: string): void {
  // PostgreSQL refuses U+0000 in text and jsonb; a lone surrogate cannot be encoded as UTF-8.
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    throw new ControlPlaneInputError(
      field,
      `contains a NUL character (U+0000) at position ${nul}, which PostgreSQL cannot store; remove it`,
    );
  }
  if (LONE_SURROGATE.test(text)) {
    throw new ControlPlaneInputError(
      field,
      'contains a lone UTF-16 surrogate, which is not valid Unicode text',
    );
  }
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

function checkJsonStrings(field: string, value: unknown): void {
  if (typeof value === 'string') {
    checkCharacters(field, value);
  } else if (Array.isArray(value)) {
    for (const item of value) checkJsonStrings(field, item);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      checkCharacters(field, key);
      checkJsonStrings(field, item);
    }
  }
}

/**
 * Serialises a value for a jsonb column and checks it first.
 *
 * Contract: returns the JSON text to bind as `$n::jsonb`. Throws `ControlPlaneInputError` naming
 * `field` for a value JSON cannot represent (undefined, a function, a BigInt, a cycle), a NUL
 * character or lone surrogate in any string or key, or JSON text over `maxBytes`.
 */
export function toStoredJson(field: string, value: unknown, options: { maxBytes: number }): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ControlPlaneInputError(
      field,
      `is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (text === undefined)
    throw new ControlPlaneInputError(field, `is not JSON-serialisable (${typeof value})`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > options.maxBytes) {
    throw new ControlPlaneInputError(
      field,
      `is ${formatBytes(bytes)} of JSON, over the limit of ${formatBytes(options.maxBytes)}`,
    );
  }
  // Check the strings themselves (keys included), not the escapes JSON.stringify wrote for them.
  checkJsonStrings(field, JSON.parse(text) as unknown);
  return text;
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
