import { describe, expect, it } from 'vitest';
import { createMcpTools } from './index';

describe('createMcpTools', () => {
  it('returns an empty tool list until the category lands', () => {
    expect(createMcpTools({})).toEqual([]);
  });
});
