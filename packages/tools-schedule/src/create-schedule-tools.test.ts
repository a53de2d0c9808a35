import { describe, expect, it } from 'vitest';
import { createScheduleTools } from './index';

describe('createScheduleTools', () => {
  it('returns an empty tool list until the category lands', () => {
    expect(createScheduleTools({})).toEqual([]);
  });
});
