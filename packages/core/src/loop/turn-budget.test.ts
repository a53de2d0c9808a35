// Core's loop through the real openai SDK against the fake server: a turn's budget is asked before
// each request and told each response's usage; a refusal ends the turn `budget-exceeded`.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentUsage, defineWorkerTool } from '../index';
import { runTurn } from './__fixtures__/loop-test-helpers';

const note = defineWorkerTool({
  name: 'note',
  description: 'Notes something.',
  schema: z.object({ text: z.string() }),
  executionMode: 'parallel',
  describeActivity: () => 'Noting',
  execute: ({ text }) => ({ content: `noted ${text}` }),
});

const callNote = (text: string) => ({
  text: `thinking about ${text}`,
  functionCalls: [{ name: 'note', arguments: { text } }],
  usage: { inputTokens: 100, outputTokens: 20 },
});

describe('turn budget', () => {
  it('ends the turn budget-exceeded before the request that would pass it, keeping the last output', async () => {
    const seen: number[] = [];
    const spent: number[] = [];
    const { result, server, events } = await runTurn([callNote('a'), callNote('b'), callNote('c')], {
      tools: [note],
      budget: {
        beforeRequest: (usage: AgentUsage) => {
          seen.push(usage.totalTokens);
          return usage.totalTokens >= 240
            ? `the turn spent ${usage.totalTokens} tokens of its 240`
            : undefined;
        },
        afterResponse: async (usage: AgentUsage) => {
          spent.push(usage.totalTokens);
        },
      },
    });
    expect(result.status).toBe('budget-exceeded');
    expect(result.error?.message).toBe('the turn spent 240 tokens of its 240');
    expect(server.requests).toHaveLength(2);
    expect(result.iterations).toBe(2);
    expect(seen).toEqual([0, 120, 240]);
    expect(spent).toEqual([120, 120]);
    expect(result.output).toBe('thinking about b');
    // The second response's call ran and its output is in the transcript before the turn ended.
    expect(result.items.at(-1)).toMatchObject({ type: 'function_call_output', output: 'noted b' });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'budget-exceeded' });
  });

  it('ends the turn failed, sending nothing, when the budget cannot be checked', async () => {
    const { result, server } = await runTurn([{ text: 'hi' }], {
      tools: [],
      budget: {
        beforeRequest: async () => {
          throw new Error('database down');
        },
      },
    });
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(/budget could not be checked: database down/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a budget without beforeRequest when the turn starts', async () => {
    await expect(runTurn([{ text: 'hi' }], { tools: [], budget: {} as never })).rejects.toThrow(
      /budget must have a beforeRequest method/,
    );
  });
});
