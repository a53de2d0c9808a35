import { describe, expect, it } from 'vitest';
import { addUsage, ZERO_USAGE } from './add-usage';

describe('addUsage', () => {
  it('adds each field and leaves both arguments as they were', () => {
    const first = {
      inputTokens: 10,
      cachedInputTokens: 2,
      outputTokens: 5,
      reasoningTokens: 1,
      totalTokens: 15,
    };
    const second = {
      inputTokens: 3,
      cachedInputTokens: 0,
      outputTokens: 4,
      reasoningTokens: 2,
      totalTokens: 7,
    };
    expect(addUsage(addUsage(ZERO_USAGE, first), second)).toEqual({
      inputTokens: 13,
      cachedInputTokens: 2,
      outputTokens: 9,
      reasoningTokens: 3,
      totalTokens: 22,
    });
    expect(first.inputTokens).toBe(10);
    expect(Object.values(ZERO_USAGE)).toEqual([0, 0, 0, 0, 0]);
  });
});
