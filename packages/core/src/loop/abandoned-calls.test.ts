// Core's loop through the real openai SDK against the fake server: a tool that ignores its signal.

import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentToolResult, createResponsesModel, defineWorkerTool, runAgentLoop } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';

/** What happened, in order: the barrier is about order, not time. */
function recorder(abortTurn?: AbortController) {
  const log: string[] = [];
  // Settles `settleMs` after its signal fires, ignoring it meanwhile; `never` never settles.
  const stubborn = defineWorkerTool({
    name: 'stubborn',
    description: 'Ignores its signal.',
    schema: z.object({ id: z.string(), settleMs: z.number().nullable() }),
    describeActivity: ({ id }) => `Stubborn ${id}`,
    execute: ({ id, settleMs }, context) => {
      log.push(`${id}:start`);
      // Aborts the turn while this call runs (a macrotask later, so the loop is already waiting on it).
      if (abortTurn !== undefined) setTimeout(() => abortTurn.abort(new Error('stop')), 1);
      return new Promise<AgentToolResult>((resolve) => {
        if (settleMs === null) return;
        context.signal.addEventListener('abort', () => {
          setTimeout(() => {
            log.push(`${id}:settled`);
            resolve({ content: `${id} finished anyway` });
          }, settleMs);
        });
      });
    },
  });
  const next = defineWorkerTool({
    name: 'next',
    description: 'Runs after.',
    schema: z.object({ id: z.string() }),
    describeActivity: ({ id }) => `Next ${id}`,
    execute: ({ id }) => {
      log.push(`${id}:start`);
      return { content: `${id} ran` };
    },
  });
  return { log, stubborn, next };
}

describe('a tool that ignores its signal on timeout', () => {
  it('holds the next sequential call until it settles, and reports a plain timeout', async () => {
    const { log, stubborn, next } = recorder();
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'stubborn', arguments: { id: 'first', settleMs: 40 }, callId: 'first' },
            { name: 'next', arguments: { id: 'second' }, callId: 'second' },
          ],
        },
        { text: 'done' },
      ],
      { tools: [stubborn, next], toolTimeoutMs: 20 },
    );
    expect(result.status).toBe('completed');
    expect(log).toEqual(['first:start', 'first:settled', 'second:start']);
    const outputs = server.requests[1]?.functionCallOutputs.map((output) => output.output);
    expect(outputs).toEqual(["Tool 'stubborn' timed out after 20 ms", 'second ran']);
    const [first] = toolCallEnds(events);
    expect(first).toMatchObject({ callId: 'first', outcome: 'timeout', isError: true });
    expect(first?.abandoned).toBeUndefined();
  });

  it('abandons a call that never settles once the grace runs out, says so, and the turn goes on', async () => {
    const { log, stubborn, next } = recorder();
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'stubborn', arguments: { id: 'first', settleMs: null }, callId: 'first' },
            { name: 'next', arguments: { id: 'second' }, callId: 'second' },
          ],
        },
        { text: 'done' },
      ],
      { tools: [stubborn, next], toolTimeoutMs: 20, abandonGraceMs: 30 },
    );
    expect(result.status).toBe('completed');
    expect(log).toEqual(['first:start', 'second:start']);
    const [first, second] =
      server.requests[1]?.functionCallOutputs.map((output) => String(output.output)) ?? [];
    expect(first).toMatch(/^Tool 'stubborn' timed out after 20 ms/);
    expect(first).toMatch(/did not stop within 30 ms.*abandoned.*may still be running/);
    expect(second).toBe('second ran');
    const ends = toolCallEnds(events);
    expect(ends[0]).toMatchObject({ callId: 'first', outcome: 'timeout', isError: true, abandoned: true });
    expect(ends[1]?.abandoned).toBeUndefined();
    // The event order holds the barrier too: the second call starts after the first one's end.
    const order = events
      .filter((event) => event.type === 'tool-call-start' || event.type === 'tool-call-end')
      .map((event) => `${event.type}:${event.callId}`);
    expect(order).toEqual([
      'tool-call-start:first',
      'tool-call-end:first',
      'tool-call-start:second',
      'tool-call-end:second',
    ]);
  });
});

describe('a tool that ignores its signal on abort', () => {
  it('ends the turn only after the running call settled', async () => {
    const controller = new AbortController();
    const { log, stubborn, next } = recorder(controller);
    const run = await runTurn(
      [
        {
          functionCalls: [
            { name: 'stubborn', arguments: { id: 'first', settleMs: 40 }, callId: 'first' },
            { name: 'next', arguments: { id: 'second' }, callId: 'second' },
          ],
        },
      ],
      { tools: [stubborn, next], signal: controller.signal },
    );
    log.push('turn-ended');
    expect(run.result.status).toBe('aborted');
    expect(log).toEqual(['first:start', 'first:settled', 'turn-ended']);
    const outputs = run.result.items.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => [item.call_id, item.output])).toEqual([
      ['first', 'cancelled: the turn was aborted while this call ran'],
      ['second', 'cancelled: the turn was aborted before this call ran'],
    ]);
    expect(toolCallEnds(run.events)[0]?.abandoned).toBeUndefined();
  });

  it('abandons a call that never settles once the grace runs out, and the turn ends aborted', async () => {
    const controller = new AbortController();
    const { log, stubborn, next } = recorder(controller);
    const run = await runTurn(
      [
        {
          functionCalls: [
            { name: 'stubborn', arguments: { id: 'first', settleMs: null }, callId: 'first' },
            { name: 'next', arguments: { id: 'second' }, callId: 'second' },
          ],
        },
      ],
      { tools: [stubborn, next], signal: controller.signal, abandonGraceMs: 30 },
    );
    expect(run.result.status).toBe('aborted');
    expect(log).toEqual(['first:start']);
    const outputs = run.result.items.filter((item) => item.type === 'function_call_output');
    expect(String(outputs[0]?.output)).toMatch(
      /^cancelled: the turn was aborted while this call ran.*did not stop within 30 ms.*abandoned.*may still be running/,
    );
    expect(outputs[1]?.output).toBe('cancelled: the turn was aborted before this call ran');
    expect(toolCallEnds(run.events).map((end) => [end.callId, end.outcome, end.abandoned])).toEqual([
      ['first', 'cancelled', true],
      ['second', 'cancelled', undefined],
    ]);
  });
});

describe('the abandonGraceMs option', () => {
  it('is checked when the loop starts, naming it', async () => {
    const { stubborn } = recorder();
    const { server } = await runTurn([{ text: 'ok' }], { tools: [stubborn], abandonGraceMs: 0 });
    // Never asked anything: the option is refused before the first request.
    const model = createResponsesModel({
      client: new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 }),
      model: 'fake-model',
    });
    for (const abandonGraceMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => runAgentLoop({ model, tools: [stubborn], input: 'x', abandonGraceMs })).toThrow(
        /abandonGraceMs must be a number >= 0/,
      );
    }
    expect(server.requests).toHaveLength(1);
  });
});
