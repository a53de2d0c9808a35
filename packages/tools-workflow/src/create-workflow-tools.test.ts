import { describe, expect, it } from 'vitest';
import { createWorkflowTools } from './index';

describe('createWorkflowTools', () => {
  it('returns an empty tool list until the category lands', () => {
    expect(createWorkflowTools({})).toEqual([]);
  });
});
