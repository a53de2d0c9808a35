import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ToolArgumentsError } from '../errors/tool-arguments-error';
import type { ToolCallEndEvent } from '../events/agent-event';
import {
  ARGUMENT_REFUSAL_REASONS,
  ARGUMENT_REPAIRS,
  type ArgumentRefusalReason,
  type ArgumentRepair,
} from './argument-ids';

describe('argument ids', () => {
  it('types repairs and refusal reasons as the closed sets, not string', () => {
    expectTypeOf<ArgumentRepair>().toEqualTypeOf<(typeof ARGUMENT_REPAIRS)[number]>();
    expectTypeOf<ArgumentRefusalReason>().toEqualTypeOf<(typeof ARGUMENT_REFUSAL_REASONS)[number]>();
    expectTypeOf<ToolCallEndEvent['repairs']>().toEqualTypeOf<ArgumentRepair[]>();
    expectTypeOf<ToolArgumentsError['reason']>().toEqualTypeOf<ArgumentRefusalReason>();
    expectTypeOf<string>().not.toExtend<ArgumentRepair>();

    const known: ArgumentRepair = 'trailing-comma';
    // @ts-expect-error an unknown repair id does not type-check
    const unknownRepair: ArgumentRepair = 'fix-everything';
    // @ts-expect-error an unknown refusal reason does not type-check
    const unknownReason: ArgumentRefusalReason = 'bad-vibes';
    expect([known, unknownRepair, unknownReason]).toEqual(['trailing-comma', 'fix-everything', 'bad-vibes']);
  });

  it('lists each id once, in kebab-case', () => {
    for (const ids of [ARGUMENT_REPAIRS, ARGUMENT_REFUSAL_REASONS]) {
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
    }
  });
});
