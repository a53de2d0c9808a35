import { createHash } from 'node:crypto';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@switchyard/control-plane';

/** What `readIdempotencyKey` found in the header. */
export type IdempotencyKeyHeader =
  | { status: 'absent' }
  | { status: 'valid'; key: string }
  | { status: 'invalid'; message: string };

/** A Structured Field string's content (printable ASCII, `\"` and `\\` escaped): the draft's form. */
const SF_STRING = /^"((?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
/** The unquoted form most clients send (a UUID, hex): visible ASCII, no quote, comma or space. */
const TOKEN = /^[\x21\x23-\x2b\x2d-\x7e]+$/;

/**
 * The `Idempotency-Key` of a request (draft-ietf-httpapi-idempotency-key-header): the draft's
 * Structured Field string (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`), or the same key unquoted as
 * most clients send it. The key is the string's content.
 *
 * Contract: never throws. `invalid` (answered 400 naming the header) for a value that is neither
 * form (a comma: the header sent twice; spaces outside quotes; characters other than printable
 * ASCII), an empty key, or a key over 255 characters. Linear in the header's length, which Node's
 * parser caps (16 KiB of headers).
 */
export function readIdempotencyKey(value: string | undefined): IdempotencyKeyHeader {
  if (value === undefined) return { status: 'absent' };
  const text = value.trim();
  let key: string | undefined;
  if (text.startsWith('"')) {
    const content = SF_STRING.exec(text)?.[1];
    key = content?.replace(/\\(["\\])/g, '$1');
  } else if (TOKEN.test(text)) {
    key = text;
  }
  if (key === undefined) {
    return {
      status: 'invalid',
      message:
        'Idempotency-Key: expected one key: a quoted string ("...") or a value of visible ASCII characters without spaces or commas',
    };
  }
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return {
      status: 'invalid',
      message: `Idempotency-Key: expected 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${key.length}`,
    };
  }
  return { status: 'valid', key };
}

/**
 * The fingerprint of a request with an `Idempotency-Key`: SHA-256 of its body's bytes exactly as
 * sent (the draft's payload digest), base64url. The route and the agent are the key's scope, not
 * part of the fingerprint.
 */
export function requestFingerprint(body: ArrayBuffer | Uint8Array): string {
  return `sha256:${createHash('sha256').update(new Uint8Array(body)).digest('base64url')}`;
}
