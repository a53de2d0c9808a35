import { describe, expect, expectTypeOf, it } from 'vitest';
import { AGENT_EVENT_TYPES, type AgentEvent } from './agent-event';

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
