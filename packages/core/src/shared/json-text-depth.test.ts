import { describe, expect, it } from 'vitest';
import { jsonTextNestsDeeperThan } from './json-text-depth';

describe('jsonTextNestsDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings, escaped quotes included', () => {
    expect(jsonTextNestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonTextNestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonTextNestsDeeperThan(JSON.stringify({ text: '[[[[[[{{{{{{' }), 1)).toBe(false);
    expect(jsonTextNestsDeeperThan(JSON.stringify({ text: 'a\\"[[[[', more: '\\\\' }), 1)).toBe(false);
    expect(jsonTextNestsDeeperThan(`{"a":"\\\\"}${'['.repeat(5)}`, 3)).toBe(true);
    expect(jsonTextNestsDeeperThan('{"open": "never closed [[[[', 1)).toBe(false);
  });

  it('reads text nested 2,000,000 deep, and a flat million values, without a stack of its own', () => {
    expect(jsonTextNestsDeeperThan(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`, 256)).toBe(true);
    expect(jsonTextNestsDeeperThan(`${'{"a":'.repeat(256)}1${'}'.repeat(256)}`, 256)).toBe(false);
    expect(jsonTextNestsDeeperThan(`[${'1,'.repeat(1_000_000)}1]`, 1)).toBe(false);
  });
});
