import { describe, expect, it } from 'vitest';
import { checkStoredText, toStoredJson } from './check-stored-value';

describe('values PostgreSQL would refuse', () => {
  it('refuses NUL characters and lone surrogates in text, naming the field', () => {
    expect(() => checkStoredText('prompt', 'a\u0000b', { maxBytes: 100 })).toThrow(
      /^prompt: contains a NUL character \(U\+0000\) at position 1/,
    );
    expect(() => checkStoredText('prompt', 'x\ud800', { maxBytes: 100 })).toThrow(
      /^prompt: .*lone UTF-16 surrogate/,
    );
    expect(() => checkStoredText('name', '  ', { maxBytes: 100 })).toThrow(/^name: must not be empty/);
    expect(checkStoredText('prompt', 'emoji 😀 ok', { maxBytes: 100 })).toBe('emoji 😀 ok');
  });

  it('counts UTF-8 bytes against the limit', () => {
    expect(() => checkStoredText('prompt', 'é'.repeat(51), { maxBytes: 100 })).toThrow(
      /^prompt: is 102 B, over the limit of 100 B/,
    );
    expect(checkStoredText('prompt', 'é'.repeat(50), { maxBytes: 100 })).toHaveLength(50);
  });

  it('refuses NUL in any JSON string or key, but not a literal backslash-u text', () => {
    expect(() => toStoredJson('result', { deep: [{ text: 'a\u0000' }] }, { maxBytes: 1000 })).toThrow(
      /^result: contains a NUL character/,
    );
    expect(() => toStoredJson('result', { 'k\u0000': 1 }, { maxBytes: 1000 })).toThrow(/NUL/);
    expect(toStoredJson('result', { text: '\\u0000 is how JSON escapes NUL' }, { maxBytes: 1000 })).toBe(
      '{"text":"\\\\u0000 is how JSON escapes NUL"}',
    );
  });

  it('refuses values JSON cannot represent and oversize JSON', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toStoredJson('payload', cycle, { maxBytes: 1000 })).toThrow(
      /^payload: is not JSON-serialisable/,
    );
    expect(() => toStoredJson('payload', undefined, { maxBytes: 1000 })).toThrow(
      /not JSON-serialisable \(undefined\)/,
    );
    expect(() => toStoredJson('payload', 10n, { maxBytes: 1000 })).toThrow(/not JSON-serialisable/);
    expect(() => toStoredJson('payload', 'x'.repeat(3000), { maxBytes: 2048 })).toThrow(
      /^payload: is 2\.9 KiB of JSON, over the limit of 2\.0 KiB/,
    );
  });
});
