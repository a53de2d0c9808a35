import { describe, expect, it } from 'vitest';
import { checkLimit } from './check-limit';

describe('checkLimit', () => {
  it('takes a whole number from 1 to the maximum, or the fallback when none is given', () => {
    expect(checkLimit(1, 100)).toBe(1);
    expect(checkLimit(100, 100, 10)).toBe(100);
    expect(checkLimit(undefined, 100, 10)).toBe(10);
  });

  it.each([
    { case: 'zero', limit: 0 },
    { case: 'over the maximum', limit: 101 },
    { case: 'a fraction', limit: 1.5 },
    { case: 'NaN', limit: Number.NaN },
    { case: 'missing without a fallback', limit: undefined },
  ])('refuses $case, naming limit', ({ limit }) => {
    expect(() => checkLimit(limit, 100)).toThrow(/^limit: must be a whole number from 1 to 100$/);
  });
});
