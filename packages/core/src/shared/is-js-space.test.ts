import { describe, expect, it } from 'vitest';
import { isJsSpace } from './is-js-space';

describe('isJsSpace', () => {
  it('agrees with /\\s/ on every UTF-16 code unit', () => {
    const disagreements: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      if (isJsSpace(code) !== /\s/.test(String.fromCharCode(code))) disagreements.push(code);
    }
    expect(disagreements).toEqual([]);
  });
});
