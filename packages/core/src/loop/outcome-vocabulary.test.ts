// Core's loop through the real openai SDK against the fake server: every `ToolCallOutcome` has a
// path that produces it, and `outcome` alone tells a failed call from a completed one.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentToolResult, defineWorkerTool, TOOL_CALL_OUTCOMES, type ToolCallEndEvent } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { abortingTool, bareTool, untilAborted } from './__fixtures__/test-tools';

function tool(
  name: string,
  execute: () => AgentToolResult | Promise<AgentToolResult>,
  executionMode: 'parallel' | 'sequential' = 'parallel',
) {
  return defineWorkerTool({
    name,
    description: `The ${name} tool.`,
    schema: z.object({ note: z.string().optional() }),
    executionMode,
    describeActivity: () => `Running ${name}`,
    execute,
  });
}

const read = tool('read', () => ({ content: 'the text' }));
const missing = tool('missing', () => ({ content: 'missing.txt does not exist', isError: true }));
const explode = tool('explode', () => {
  throw new Error('disk on fire');
});
const empty = tool('empty', () => undefined as never);
// Honours its signal, so the timeout ends it at once.
const hang = bareTool('hang', untilAborted);
const remove = tool('remove', () => ({ content: 'removed' }), 'sequential');
const submit = tool('submit', () => ({ content: 'submitted', endsTurn: true }));

function byCallId(events: Parameters<typeof toolCallEnds>[0]): Map<string, ToolCallEndEvent> {
  return new Map(toolCallEnds(events).map((event) => [event.callId, event]));
}

describe('one outcome vocabulary', () => {
  it('gives every call one outcome from TOOL_CALL_OUTCOMES, failed exactly when it is not completed', async () => {
    const first = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read', arguments: {}, callId: 'completed' },
            { name: 'missing', arguments: {}, callId: 'error-result' },
            { name: 'explode', arguments: {}, callId: 'threw' },
            { name: 'empty', arguments: {}, callId: 'no-result' },
            { name: 'read', arguments: { note: 5 }, callId: 'invalid' },
            { name: 'hang', arguments: {}, callId: 'timeout' },
            { name: 'no_such_tool', arguments: {}, callId: 'unknown' },
            { name: 'remove', arguments: {}, callId: 'denied' },
            { name: 'read', arguments: {}, callId: 'twice' },
            { name: 'remove', arguments: {}, callId: 'twice' },
          ],
        },
        {
          functionCalls: [
            { name: 'submit', arguments: {}, callId: 'ends-turn' },
            { name: 'remove', arguments: {}, callId: 'skipped' },
          ],
        },
      ],
      {
        tools: [read, missing, explode, empty, hang, remove, submit],
        toolTimeoutMs: 30,
        beforeToolCall: (call) =>
          call.callId === 'denied' ? { allow: false, reason: 'not now' } : { allow: true },
      },
    );
    expect(first.result.status).toBe('ended-by-tool');
    const ends = byCallId(first.events);
    expect(Object.fromEntries([...ends].map(([id, event]) => [id, event.outcome]))).toEqual({
      completed: 'completed',
      'error-result': 'tool-error',
      threw: 'tool-error',
      'no-result': 'tool-error',
      invalid: 'invalid-arguments',
      timeout: 'timeout',
      unknown: 'unknown-tool',
      denied: 'denied',
      twice: 'duplicate-call-id',
      'ends-turn': 'completed',
      skipped: 'skipped',
    });
    // The tool's own error result reaches the model unchanged; only the event names it a failure.
    const outputs = new Map(
      first.server.requests[1]?.functionCallOutputs.map((output) => [output.callId, output.output]),
    );
    expect(outputs.get('error-result')).toBe('missing.txt does not exist');
    expect(ends.get('error-result')?.activity).toBe('Running missing');

    const controller = new AbortController();
    const block = abortingTool(controller);
    const second = await runTurn(
      [
        {
          functionCalls: [
            { name: 'block', arguments: {}, callId: 'running' },
            { name: 'read', arguments: {}, callId: 'pending' },
          ],
        },
      ],
      { tools: [block, read], signal: controller.signal },
    );
    expect(second.result.status).toBe('aborted');
    expect(toolCallEnds(second.events).map((event) => [event.callId, event.outcome])).toEqual([
      ['running', 'cancelled'],
      ['pending', 'cancelled'],
    ]);

    // A resumed turn whose journal says `remove` started and never finished: in doubt, not run again.
    const third = await runTurn([{ text: 'done' }], {
      tools: [remove],
      input: [
        { type: 'message', role: 'user', content: 'Hello' },
        { type: 'function_call', call_id: 'doubtful', name: 'remove', arguments: '{}' },
      ],
      journal: {
        recorded: {
          responses: [],
          started: [{ itemIndex: 1, callId: 'doubtful', key: 'remove', idempotencyKey: 'turn:1' }],
          outputs: [],
        },
        response: async () => {},
        callStarted: async () => {},
        callFinished: async () => {},
      },
    });
    expect(toolCallEnds(third.events).map((event) => [event.callId, event.outcome])).toEqual([
      ['doubtful', 'in-doubt'],
    ]);

    const all = [
      ...toolCallEnds(first.events),
      ...toolCallEnds(second.events),
      ...toolCallEnds(third.events),
    ];
    // Every value of the set has a path that produces it, and nothing outside the set is produced.
    expect(new Set(all.map((event) => event.outcome))).toEqual(new Set(TOOL_CALL_OUTCOMES));
    for (const event of all)
      expect([event.callId, event.isError]).toEqual([event.callId, event.outcome !== 'completed']);
  });

  it('still ends the turn on an error result that asks to, reported as tool-error', async () => {
    const giveUp = tool('give_up', () => ({
      content: 'cannot finish the task',
      isError: true,
      endsTurn: true,
    }));
    const { result, events } = await runTurn([{ functionCalls: [{ name: 'give_up', arguments: {} }] }], {
      tools: [giveUp],
    });
    expect(result.status).toBe('ended-by-tool');
    expect(toolCallEnds(events)).toMatchObject([{ outcome: 'tool-error', isError: true, endsTurn: true }]);
  });
});
