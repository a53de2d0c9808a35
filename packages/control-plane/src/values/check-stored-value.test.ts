import { describe, expect, it } from 'vitest';
import { checkStoredJson, checkStoredText, toStoredJson } from './check-stored-value';

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
      /^result: \/deep\/0\/text: contains a NUL character/,
    );
    expect(() => toStoredJson('result', { 'k\u0000': 1 }, { maxBytes: 1000 })).toThrow(
      /^result: \/: the key "k\\u0000" contains a NUL/,
    );
    expect(toStoredJson('result', { text: '\\u0000 is how JSON escapes NUL' }, { maxBytes: 1000 })).toBe(
      '{"text":"\\\\u0000 is how JSON escapes NUL"}',
    );
  });

  it('refuses numbers JSON cannot hold instead of storing them as null, naming where they are', () => {
    // A model's `1e999` parses to Infinity; JSON.stringify would write it as null.
    const overflow = JSON.parse('{"quotes": [{"price": 1e999}]}') as unknown;
    expect(() => toStoredJson('result', overflow, { maxBytes: 1000 })).toThrow(
      /^result: \/quotes\/0\/price: Infinity is not a finite number, and JSON has no Infinity or NaN/,
    );
    expect(() => toStoredJson('payload', Number.NaN, { maxBytes: 1000 })).toThrow(/^payload: \/: NaN is not/);
    expect(() => toStoredJson('payload', { 'a/b': -Infinity }, { maxBytes: 1000 })).toThrow(
      /^payload: \/a~1b: -Infinity is not/,
    );
    // Values whose JSON is finite pass, and the check is what JSON.stringify would write (toJSON applies).
    expect(toStoredJson('payload', { at: new Date(0), big: 1e308 }, { maxBytes: 1000 })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","big":1e+308}',
    );
    expect(checkStoredJson({ keep: 1, drop: undefined }, { maxBytes: 100 })).toEqual({
      ok: true,
      text: '{"keep":1}',
      value: { keep: 1 },
    });
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
