import { describe, expect, it } from 'vitest';
import { validateResult } from './validate-result';

describe('result validation messages', () => {
  it('escapes a key holding "/" or "~" as one JSON-pointer segment', () => {
    const schema = {
      type: 'object',
      properties: {
        'a/b': { type: 'string' },
        'c~d': { type: 'object', properties: {}, additionalProperties: false },
      },
      required: ['a/b', 'c~d'],
      additionalProperties: false,
    };
    expect(validateResult(schema, { 'c~d': { 'e/f~g': 1 }, 'x/y': true })).toEqual([
      '/a~1b: missing: this property is required',
      '/x~1y: unexpected property: the schema does not allow it',
      '/c~0d/e~1f~0g: unexpected property: the schema does not allow it',
    ]);
  });

  it('names the root as "/" and says what was expected', () => {
    expect(validateResult({ type: 'object' }, 3)).toEqual(['/: expected object']);
    expect(validateResult({ enum: ['low', 'high'] }, 'mid')).toEqual(['/: expected one of "low", "high"']);
  });
});
