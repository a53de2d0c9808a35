import { describe, expect, it } from 'vitest';
import { createComputerTools } from './index';

describe('createComputerTools', () => {
  it('returns an empty tool list until the category lands', () => {
    expect(createComputerTools({})).toEqual([]);
  });
});
