import type { AgentUsage } from './agent-event';

/** No tokens: the start of a sum of `AgentUsage`. Frozen, so a sum never writes into it. */
export const ZERO_USAGE: Readonly<AgentUsage> = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
});

/**
 * The sum of two token counts, field by field.
 *
 * Contract: returns a new object; never mutates its arguments.
 */
export function addUsage(total: Readonly<AgentUsage>, more: Readonly<AgentUsage>): AgentUsage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    cachedInputTokens: total.cachedInputTokens + more.cachedInputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    reasoningTokens: total.reasoningTokens + more.reasoningTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  };
}
