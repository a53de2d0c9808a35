import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AGENT_EVENT_TYPES, type AgentEvent, TOOL_CALL_OUTCOMES, type ToolCallOutcome } from './agent-event';

describe('event types', () => {
  it('names every event noun-verb in kebab-case, ending with end rather than finish', () => {
    for (const type of AGENT_EVENT_TYPES) expect(type).toMatch(/^[a-z]+(-[a-z]+)+$/);
    expect(AGENT_EVENT_TYPES.some((type) => type.includes('finish'))).toBe(false);
    expect(new Set(AGENT_EVENT_TYPES).size).toBe(AGENT_EVENT_TYPES.length);
  });

  it('lists exactly the members of the union, from turn-start to turn-end', () => {
    expectTypeOf<(typeof AGENT_EVENT_TYPES)[number]>().toEqualTypeOf<AgentEvent['type']>();
    expect(AGENT_EVENT_TYPES[0]).toBe('turn-start');
    expect(AGENT_EVENT_TYPES.at(-1)).toBe('turn-end');
  });

  // With the members pinned by the type and no repeats, these steps of a turn fix the whole order.
  it.each([
    ['model-request-start', 'text-delta'],
    ['text-delta', 'model-request-end'],
    ['model-request-end', 'tool-call-start'],
    ['tool-call-start', 'tool-call-progress'],
    ['tool-call-progress', 'tool-call-end'],
  ] as const)('lists %s before %s, as a turn yields them', (earlier, later) => {
    expect(AGENT_EVENT_TYPES.indexOf(earlier)).toBeLessThan(AGENT_EVENT_TYPES.indexOf(later));
  });
});

describe('tool call outcomes', () => {
  it('lists one closed set, completed first, in kebab-case without repeats', () => {
    expectTypeOf<(typeof TOOL_CALL_OUTCOMES)[number]>().toEqualTypeOf<ToolCallOutcome>();
    expect(TOOL_CALL_OUTCOMES[0]).toBe('completed');
    for (const outcome of TOOL_CALL_OUTCOMES) expect(outcome).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(new Set(TOOL_CALL_OUTCOMES).size).toBe(TOOL_CALL_OUTCOMES.length);
  });

  // The outcomes are stored in event logs and published in the API document: the README's table is
  // their documentation, so the list changes only together with it.
  it('lists the outcomes of the README table, in its order', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('| outcome | the call |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
    expect(rows.map((row) => /^\| `([a-z-]+)` \|/.exec(row)?.[1])).toEqual([...TOOL_CALL_OUTCOMES]);
  });
});
