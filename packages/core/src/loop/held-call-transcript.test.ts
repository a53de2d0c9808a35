// Core's loop through the real openai SDK against the fake server: a call held by `beforeToolCall`
// (an approval) exposes the turn's transcript, and a new loop continues the turn from it.

import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentEvent, defineWorkerTool } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';

function counter() {
  const counts = new Map<string, number>();
  return {
    counts,
    add(key: string) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
}

function tools(runs: ReturnType<typeof counter>, cDone?: () => void) {
  const readNote = defineWorkerTool({
    name: 'read_note',
    description: 'Read a note.',
    schema: z.object({ name: z.string() }),
    executionMode: 'sequential',
    isReadOnly: true,
    describeActivity: ({ name }) => `Reading ${name}`,
    execute: ({ name }) => {
      runs.add(`read ${name}`);
      return { content: `note ${name}` };
    },
  });
  const writeNote = defineWorkerTool({
    name: 'write_note',
    description: 'Write a note.',
    schema: z.object({ name: z.string() }),
    executionMode: 'parallel',
    isDestructive: true,
    describeActivity: ({ name }) => `Writing ${name}`,
    execute: ({ name }) => {
      runs.add(`write ${name}`);
      if (name === 'c') cDone?.();
      return { content: `wrote ${name}` };
    },
  });
  return [readNote, writeNote];
}

const CALLS = [
  { name: 'read_note', arguments: { name: 'a' }, callId: 'call_a' },
  { name: 'write_note', arguments: { name: 'b' }, callId: 'call_b' },
  { name: 'write_note', arguments: { name: 'c' }, callId: 'call_c' },
];

describe('a held call and its transcript', () => {
  it("gives the hook the transcript with the finished calls' outputs, and a new loop continues from it, running only the calls without an output", async () => {
    const runs = counter();
    let markCDone: () => void = () => {};
    const cDone = new Promise<void>((resolve) => {
      markCDone = resolve;
    });
    let stored: ResponseInputItem[] | undefined;
    let atHold: ResponseInputItem[] | undefined;
    const controller = new AbortController();
    // The first process: `b` is held; by the time `c` (parallel with it) has finished, the hook
    // stores the transcript and the process stops (the turn is aborted).
    const first = await runTurn([{ functionCalls: CALLS }, { text: 'never asked' }], {
      tools: tools(runs, markCDone),
      signal: controller.signal,
      beforeToolCall: async (call, tool) => {
        if (!tool.isDestructive || call.callId !== 'call_b') return { allow: true };
        atHold = call.transcript();
        await cDone;
        await new Promise((resolve) => setImmediate(resolve));
        stored = call.transcript();
        controller.abort(new Error('the worker stopped'));
        return { allow: false, reason: 'the worker stopped' };
      },
    });
    expect(first.result.status).toBe('aborted');
    expect(first.server.requests).toHaveLength(1);
    // At the hold: the user's message, the response's three calls, and `a`'s output (sequential,
    // finished before the batch of `b` and `c` began).
    expect(atHold?.map((item) => ('type' in item ? item.type : 'message'))).toEqual([
      'message',
      'function_call',
      'function_call',
      'function_call',
      'function_call_output',
    ]);
    // Taken again later, it has `c`'s output too, in call order; `b` has none.
    const outputs = (stored ?? []).filter((item) => 'type' in item && item.type === 'function_call_output');
    expect(outputs.map((item) => (item as { call_id: string }).call_id)).toEqual(['call_a', 'call_c']);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);

    // Another process continues the turn from the stored transcript: `b` is dispatched first (its
    // hook allows it now), nothing else is run again, then the model gets every output.
    const decisions: string[] = [];
    const second = await runTurn([{ text: 'All three done.' }], {
      input: stored ?? [],
      tools: tools(runs),
      beforeToolCall: (call) => {
        decisions.push(call.callId);
        return { allow: true };
      },
    });
    expect(second.result).toMatchObject({ status: 'completed', output: 'All three done.', iterations: 1 });
    expect(decisions).toEqual(['call_b']);
    expect(Object.fromEntries(runs.counts)).toEqual({ 'read a': 1, 'write b': 1, 'write c': 1 });
    const types = second.events.map((event: AgentEvent) => event.type);
    expect(types.slice(0, 3)).toEqual(['turn-start', 'tool-call-start', 'tool-call-end']);
    expect(second.server.requests[0]?.functionCallOutputs).toEqual([
      { callId: 'call_a', output: 'note a' },
      { callId: 'call_c', output: 'wrote c' },
      { callId: 'call_b', output: 'wrote b' },
    ]);
  });

  it('gives a pending call a denial the model reads when the hook refuses it, and honours endsTurn and abort before any request', async () => {
    const runs = counter();
    const transcript: ResponseInputItem[] = [
      { type: 'message', role: 'user', content: 'Write b' },
      { type: 'function_call', call_id: 'call_b', name: 'write_note', arguments: '{"name":"b"}' },
    ];
    const denied = await runTurn([{ text: 'Understood, not written.' }], {
      input: transcript,
      tools: tools(runs),
      beforeToolCall: () => ({ allow: false, reason: 'the operator denied it' }),
    });
    expect(toolCallEnds(denied.events)).toMatchObject([{ callId: 'call_b', outcome: 'denied' }]);
    expect(denied.server.requests[0]?.functionCallOutputs).toEqual([
      { callId: 'call_b', output: 'Tool call denied: the operator denied it' },
    ]);
    expect(runs.counts.size).toBe(0);

    const aborted = await runTurn([{ text: 'never asked' }], {
      input: transcript,
      tools: tools(runs),
      signal: AbortSignal.abort(new Error('cancelled')),
    });
    expect(aborted.result.status).toBe('aborted');
    expect(toolCallEnds(aborted.events)).toMatchObject([{ callId: 'call_b', outcome: 'cancelled' }]);
    expect(aborted.server.requests).toHaveLength(0);
    expect(runs.counts.size).toBe(0);
    // A transcript whose calls all have outputs goes to the model as it is.
    const answered = await runTurn([{ text: 'Already written.' }], {
      input: [...transcript, { type: 'function_call_output', call_id: 'call_b', output: 'wrote b' }],
      tools: tools(runs),
    });
    expect(answered.result.iterations).toBe(1);
    expect(toolCallEnds(answered.events)).toEqual([]);
    expect(runs.counts.size).toBe(0);
  });
});
