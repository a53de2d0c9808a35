// How many calls of one response run at once, through the real SDK and the fake server: a response
// of many parallel calls runs them a bounded number at a time, in order, with outputs in call order.

import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PARALLEL_CALLS } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { bareTool } from './__fixtures__/test-tools';

/** A tool that counts how many of its calls run at once, each taking a few milliseconds. */
function countingTool() {
  const seen = { running: 0, most: 0, started: [] as string[] };
  const tool = bareTool('count', async (context) => {
    seen.running += 1;
    seen.most = Math.max(seen.most, seen.running);
    seen.started.push(context.toolCallId);
    await new Promise((resolve) => setTimeout(resolve, 2 + (seen.started.length % 3)));
    seen.running -= 1;
    return { content: `done ${context.toolCallId}` };
  });
  return { tool, seen };
}

const calls = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ name: 'count', arguments: {}, callId: `call_${index}` }));

describe('parallel calls of one response', () => {
  it('runs 128 parallel calls at most maxParallelCalls at a time, started and recorded in call order', async () => {
    const { tool, seen } = countingTool();
    const { result, events, server } = await runTurn([{ functionCalls: calls(128) }, { text: 'done' }], {
      tools: [tool],
      maxParallelCalls: 4,
    });
    expect(result.status).toBe('completed');
    expect(seen.most).toBe(4);
    expect(seen.started).toEqual(calls(128).map((call) => call.callId));
    expect(toolCallEnds(events)).toHaveLength(128);
    const outputs = server.requests[1]?.functionCallOutputs ?? [];
    expect(outputs.map((output) => output.output)).toEqual(calls(128).map((call) => `done ${call.callId}`));
  });

  it('bounds them by default, to twice the cores from 4 to 16', async () => {
    expect(DEFAULT_MAX_PARALLEL_CALLS).toBeGreaterThanOrEqual(4);
    expect(DEFAULT_MAX_PARALLEL_CALLS).toBeLessThanOrEqual(16);
    const { tool, seen } = countingTool();
    await runTurn([{ functionCalls: calls(64) }, { text: 'done' }], { tools: [tool] });
    expect(seen.most).toBe(DEFAULT_MAX_PARALLEL_CALLS);
  });

  it('refuses a maxParallelCalls that is not a positive integer, naming it', async () => {
    const { tool } = countingTool();
    await expect(runTurn([{ text: 'x' }], { tools: [tool], maxParallelCalls: 0 })).rejects.toThrow(
      'runAgentLoop: maxParallelCalls must be a positive integer, got 0',
    );
  });
});
