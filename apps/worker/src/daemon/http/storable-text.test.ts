import { describe, expect, it } from 'vitest';
import { isStorableJson, isStorableText } from './storable-text';

describe('storable text', () => {
  it('takes any text without a NUL or a lone surrogate, pairs and every plane included', () => {
    for (const text of ['', 'plain', 'Zürich € 😀', '\ud83d\ude00', '\u0001\uffff']) {
      expect(isStorableText(text)).toBe(true);
    }
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate', 'a\udc00b'],
    ['a high surrogate at the end', 'ab\ud83d'],
    ['a low surrogate at the start', '\ude00ab'],
    ['two high surrogates', '\ud83d\ud83d\ude00'],
  ])('refuses text with %s', (_, text) => {
    expect(isStorableText(text)).toBe(false);
  });

  it('checks every string and key of a JSON value, however deep', () => {
    expect(isStorableJson({ type: 'object', properties: { a: { enum: ['x', 1, null, true] } } })).toBe(true);
    expect(isStorableJson({ properties: { a: { description: 'x\u0000' } } })).toBe(false);
    expect(isStorableJson({ properties: { 'a\ud800': {} } })).toBe(false);
    expect(isStorableJson([[['\udc00']]])).toBe(false);
    let deep: unknown = 'end\u0000';
    for (let depth = 0; depth < 200_000; depth += 1) deep = [deep];
    expect(isStorableJson(deep)).toBe(false);
  });
});
