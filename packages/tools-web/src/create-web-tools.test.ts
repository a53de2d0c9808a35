import { describe, expect, it } from 'vitest';
import { createWebTools } from './index';

describe('createWebTools', () => {
  it('returns an empty tool list until the category lands', () => {
    expect(createWebTools({})).toEqual([]);
  });
});
