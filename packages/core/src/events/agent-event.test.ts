import { describe, expect, expectTypeOf, it } from 'vitest';
import { AGENT_EVENT_TYPES, type AgentEvent, TOOL_CALL_OUTCOMES, type ToolCallOutcome } from './agent-event';

describe('event types', () => {
  it('names every event noun-verb in kebab-case, ending with end rather than finish', () => {
    for (const type of AGENT_EVENT_TYPES) expect(type).toMatch(/^[a-z]+(-[a-z]+)+$/);
    expect(AGENT_EVENT_TYPES.some((type) => type.includes('finish'))).toBe(false);
    expect(new Set(AGENT_EVENT_TYPES).size).toBe(AGENT_EVENT_TYPES.length);
  });

  it('lists exactly the members of the union', () => {
    expectTypeOf<(typeof AGENT_EVENT_TYPES)[number]>().toEqualTypeOf<AgentEvent['type']>();
    expect(AGENT_EVENT_TYPES).toEqual([
      'turn-start',
      'model-request-start',
      'text-delta',
      'model-request-end',
      'tool-call-start',
      'tool-call-progress',
      'tool-call-end',
      'turn-end',
    ]);
  });
});

describe('tool call outcomes', () => {
  it('lists one closed set, completed first, in kebab-case without repeats', () => {
    expectTypeOf<(typeof TOOL_CALL_OUTCOMES)[number]>().toEqualTypeOf<ToolCallOutcome>();
    expect(TOOL_CALL_OUTCOMES).toEqual([
      'completed',
      'tool-error',
      'invalid-arguments',
      'denied',
      'timeout',
      'cancelled',
      'unknown-tool',
      'skipped',
    ]);
    for (const outcome of TOOL_CALL_OUTCOMES) expect(outcome).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(new Set(TOOL_CALL_OUTCOMES).size).toBe(TOOL_CALL_OUTCOMES.length);
  });
});
