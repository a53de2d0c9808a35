import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readIdempotencyKey, requestFingerprint } from './idempotency-key-header';

describe('the Idempotency-Key header', () => {
  it('takes the draft’s quoted string, unescaped, and the unquoted form clients send', () => {
    expect(readIdempotencyKey(undefined)).toEqual({ status: 'absent' });
    expect(readIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toEqual({
      status: 'valid',
      key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
    });
    expect(readIdempotencyKey('8e03978e40d543e8')).toEqual({ status: 'valid', key: '8e03978e40d543e8' });
    expect(readIdempotencyKey('  padded  ')).toEqual({ status: 'valid', key: 'padded' });
    expect(readIdempotencyKey('"a key with \\"quotes\\" and \\\\"')).toEqual({
      status: 'valid',
      key: 'a key with "quotes" and \\',
    });
    expect(readIdempotencyKey(`"${'k'.repeat(255)}"`)).toEqual({ status: 'valid', key: 'k'.repeat(255) });
  });

  it('refuses anything else, saying what a key is', () => {
    for (const value of [
      '', // nothing
      '""', // an empty string
      'two, keys', // the header sent twice: Node joins the values with a comma
      'a b', // a space outside quotes
      '"unterminated',
      '"trailing" x',
      '"bad \\n escape"',
      'caf\u00e9', // not ASCII
      '"caf\u00e9"',
      'k'.repeat(256),
    ]) {
      const read = readIdempotencyKey(value);
      expect(read.status, JSON.stringify(value)).toBe('invalid');
      if (read.status === 'invalid') expect(read.message).toMatch(/^Idempotency-Key: expected/);
    }
    expect(readIdempotencyKey('k'.repeat(256))).toEqual({
      status: 'invalid',
      message: 'Idempotency-Key: expected 1 to 255 characters, got 256',
    });
  });

  it('fingerprints a request by the SHA-256 of its body’s bytes exactly as sent', () => {
    const body = new TextEncoder().encode('{"prompt": "hi"}');
    expect(requestFingerprint(body)).toBe(`sha256:${createHash('sha256').update(body).digest('base64url')}`);
    // The same JSON spaced otherwise is another request body.
    expect(requestFingerprint(new TextEncoder().encode('{"prompt":"hi"}'))).not.toBe(
      requestFingerprint(body),
    );
    expect(requestFingerprint(body.buffer)).toBe(requestFingerprint(body));
  });
});
