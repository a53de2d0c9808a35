// A turn's journal through the real SDK and the fake server: each step recorded before the loop
// moves on, and a turn continued from its journal repeating nothing that was recorded: responses
// replayed (no request), outputs reused (nothing runs), calls in doubt run again only when that is
// safe.

import type { FakeScriptStep } from '@switchyard/fake-responses-server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentEvent,
  defineWorkerTool,
  type RecordedTurn,
  type ToolExecutionContext,
  type TurnJournal,
} from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import type { JournalCallOutput, JournalCallStart, JournalResponse } from './turn-journal';

/** A journal kept in memory, logging what it is told in order (with the fake server's request count). */
function memoryJournal(recorded?: RecordedTurn, failOn?: 'callStarted' | 'response') {
  const log: string[] = [];
  const kept = {
    responses: [] as JournalResponse[],
    started: [] as JournalCallStart[],
    outputs: [] as JournalCallOutput[],
  };
  const journal: TurnJournal = {
    ...(recorded === undefined ? {} : { recorded }),
    response: async (entry) => {
      if (failOn === 'response') throw new Error('the database is gone');
      const withStarts = entry.started?.map((start) => start.itemIndex).join(',');
      log.push(`response ${entry.iteration}${withStarts === undefined ? '' : ` with started ${withStarts}`}`);
      kept.responses.push(entry);
      // Kept with the other starts too, as the control plane reads them back.
      kept.started.push(...(entry.started ?? []));
    },
    callStarted: async (entry) => {
      if (failOn === 'callStarted') throw new Error('another worker took this turn over');
      log.push(`started ${entry.itemIndex}`);
      kept.started.push(entry);
    },
    callFinished: async (entry) => {
      log.push(`finished ${entry.itemIndex}`);
      kept.outputs.push(entry);
    },
  };
  return { journal, log, kept };
}

/** Tools that log their runs: `write` (destructive), `look` (read-only), `charge` (idempotent). */
function tools(runs: string[]) {
  const make = (
    name: string,
    flags: { isReadOnly?: boolean; isDestructive?: boolean; idempotent?: boolean },
  ) =>
    defineWorkerTool({
      name,
      description: `The ${name} tool.`,
      schema: z.object({ note: z.string() }),
      executionMode: 'sequential',
      ...flags,
      describeActivity: ({ note }) => `${name} ${note}`,
      execute: async ({ note }, context: ToolExecutionContext) => {
        runs.push(`${name} ${note} ${context.idempotencyKey}`);
        return { content: `${name} did ${note}` };
      },
    });
  return [
    make('write', { isDestructive: true }),
    make('look', { isReadOnly: true }),
    make('charge', { isDestructive: true, idempotent: true }),
  ];
}

const TWO_STEPS = [
  {
    functionCalls: [
      { name: 'look', arguments: { note: 'a' }, callId: 'c1' },
      { name: 'write', arguments: { note: 'b' }, callId: 'c2' },
      { name: 'charge', arguments: { note: 'c' }, callId: 'c3' },
    ],
  },
  { text: 'all done' },
];

/**
 * What a turn of `TWO_STEPS` left when its worker stopped during its second call: the first response,
 * the first two calls started, the first one's output.
 */
async function stoppedInSecondCall(turnId: string): Promise<RecordedTurn> {
  const original = memoryJournal();
  await runTurn(TWO_STEPS, { tools: tools([]), journal: original.journal, turnId });
  return {
    responses: original.kept.responses.slice(0, 1),
    started: original.kept.started.slice(0, 2),
    outputs: original.kept.outputs.slice(0, 1),
  };
}

const types = (events: readonly AgentEvent[]) => events.map((event) => event.type);

describe('a turn journal', () => {
  it('records each response before its calls run, each call before it runs and its output before the next request', async () => {
    const runs: string[] = [];
    const { journal, log } = memoryJournal();
    const { result, server } = await runTurn(TWO_STEPS, { tools: tools(runs), journal, turnId: 'turn_7' });
    expect(result.status).toBe('completed');
    expect(log).toEqual([
      // The read-only call that runs first is recorded as started with its response.
      'response 1 with started 1',
      'finished 1',
      'started 2',
      'finished 2',
      'started 3',
      'finished 3',
      'response 2',
    ]);
    // Every call knows its key: the turn's id and its item.
    expect(runs).toEqual(['look a turn_7:1', 'write b turn_7:2', 'charge c turn_7:3']);
    expect(server.requests).toHaveLength(2);
  });

  it('continues from what was recorded: no request for a recorded step, no run for a recorded output', async () => {
    const first: string[] = [];
    const original = memoryJournal();
    const whole = await runTurn(TWO_STEPS, {
      tools: tools(first),
      journal: original.journal,
      turnId: 'turn_7',
    });
    // The worker stopped after the first step and its first two outputs were recorded.
    const { responses, started, outputs } = original.kept;
    const recorded: RecordedTurn = {
      responses: responses.slice(0, 1),
      started: started.slice(0, 2),
      outputs: outputs.slice(0, 2),
    };
    const runs: string[] = [];
    const resumed = memoryJournal(recorded);
    const { result, events, server } = await runTurn([{ text: 'all done' }], {
      tools: tools(runs),
      journal: resumed.journal,
      turnId: 'turn_7',
    });
    expect(result.status).toBe('completed');
    // Only the unrecorded call ran, once, and only the second step was asked for.
    expect(runs).toEqual(['charge c turn_7:3']);
    expect(server.requests).toHaveLength(1);
    expect(resumed.log).toEqual(['started 3', 'finished 3', 'response 2']);
    // The same transcript, and the same output, as the turn that never stopped (but for the id the
    // fake server gives the last message, which counts its own requests).
    expect(result.items.slice(0, -1)).toEqual(whole.result.items.slice(0, -1));
    expect({ ...result.items.at(-1), id: 'msg' }).toEqual({ ...whole.result.items.at(-1), id: 'msg' });
    expect(result.output).toBe('all done');
    expect(result.usage).toEqual(whole.result.usage);
    const replayedStart = events.find((event) => event.type === 'model-request-start');
    expect(replayedStart).toMatchObject({ iteration: 1, replayed: true });
    expect(toolCallEnds(events).map((end) => [end.callId, end.outcome, end.replayed ?? false])).toEqual([
      ['c1', 'completed', true],
      ['c2', 'completed', true],
      ['c3', 'completed', false],
    ]);
    expect(types(events).slice(0, 4)).toEqual([
      'turn-start',
      'model-request-start',
      'model-request-end',
      'tool-call-end',
    ]);
  });

  it('runs a call in doubt again only when it is read-only or idempotent, with the same key', async () => {
    const original = memoryJournal();
    await runTurn(TWO_STEPS, { tools: tools([]), journal: original.journal, turnId: 'turn_8' });
    // All three calls started, none recorded an output: each is in doubt.
    const recorded: RecordedTurn = {
      responses: original.kept.responses.slice(0, 1),
      started: original.kept.started,
      outputs: [],
    };
    const runs: string[] = [];
    // Continued as a turn of another id (a unit's next attempt): the keys are the first attempt's.
    const { result, events, server } = await runTurn([{ text: 'all done' }], {
      tools: tools(runs),
      journal: memoryJournal(recorded).journal,
      turnId: 'turn_9',
    });
    expect(result.status).toBe('completed');
    expect(runs).toEqual(['look a turn_8:1', 'charge c turn_8:3']);
    expect(toolCallEnds(events).map((end) => [end.callId, end.outcome, end.inDoubt ?? false])).toEqual([
      ['c1', 'completed', true],
      ['c2', 'in-doubt', true],
      ['c3', 'completed', true],
    ]);
    const outputs = server.requests[0]?.functionCallOutputs ?? [];
    expect(String(outputs[1]?.output)).toMatch(
      /^Not run again: the worker running this turn stopped while this call was running/,
    );
  });

  it('asks beforeToolCall about a call in doubt, which may run it again', async () => {
    const recorded = await stoppedInSecondCall('turn_9');
    const runs: string[] = [];
    const asked: Array<[string, boolean]> = [];
    const { events } = await runTurn([{ text: 'all done' }], {
      tools: tools(runs),
      journal: memoryJournal(recorded).journal,
      turnId: 'turn_9',
      beforeToolCall: (call) => {
        asked.push([call.callId, call.inDoubt === true]);
        return { allow: true };
      },
    });
    expect(asked).toEqual([
      ['c2', true],
      ['c3', false],
    ]);
    expect(runs).toEqual(['write b turn_9:2', 'charge c turn_9:3']);
    expect(toolCallEnds(events).map((end) => end.outcome)).toEqual(['completed', 'completed', 'completed']);
  });

  it('reports a call in doubt that beforeToolCall refuses as in doubt, with its reason', async () => {
    const recorded = await stoppedInSecondCall('turn_10');
    const runs: string[] = [];
    const { events, server } = await runTurn([{ text: 'all done' }], {
      tools: tools(runs),
      journal: memoryJournal(recorded).journal,
      turnId: 'turn_10',
      beforeToolCall: (call) =>
        call.inDoubt === true ? { allow: false, reason: 'the policy reports it' } : { allow: true },
    });
    expect(runs).toEqual(['charge c turn_10:3']);
    expect(toolCallEnds(events).map((end) => end.outcome)).toEqual(['completed', 'in-doubt', 'completed']);
    const output = String(server.requests[0]?.functionCallOutputs[1]?.output);
    expect(output).toMatch(/^Not run again: the worker running this turn stopped/);
    expect(output).toContain('(Tool call denied: the policy reports it)');
  });

  it('stops a turn whose journal cannot be written, running nothing it could not record', async () => {
    const runs: string[] = [];
    const { result, events } = await runTurn(TWO_STEPS, {
      tools: tools(runs),
      journal: memoryJournal(undefined, 'callStarted').journal,
    });
    expect(result.status).toBe('failed');
    expect(result.error?.message).toBe(
      "the turn's journal could not be written: another worker took this turn over",
    );
    // The read-only call's start went with its response; the write's could not be recorded.
    expect(runs.map((run) => run.split(' ').slice(0, 2).join(' '))).toEqual(['look a']);
    expect(toolCallEnds(events).map((end) => end.outcome)).toEqual(['completed', 'cancelled', 'cancelled']);

    const refusedRuns: string[] = [];
    const refused = await runTurn(TWO_STEPS, {
      tools: tools(refusedRuns),
      journal: memoryJournal(undefined, 'response').journal,
    });
    expect(refused.result.status).toBe('failed');
    expect(refused.result.error?.message).toBe(
      "the turn's journal could not be written: the database is gone",
    );
    expect(refusedRuns).toEqual([]);
  });

  it('records with a response the starts of the read-only and idempotent calls that run at once, and only those', async () => {
    const runs: string[] = [];
    const peek = (name: string, flags: { isReadOnly?: boolean; idempotent?: boolean }) =>
      defineWorkerTool({
        name,
        description: `The ${name} tool.`,
        schema: z.object({ note: z.string() }),
        executionMode: 'parallel',
        ...flags,
        describeActivity: ({ note }) => `${name} ${note}`,
        execute: async ({ note }, context: ToolExecutionContext) => {
          runs.push(`${name} ${note} ${context.idempotencyKey}`);
          return { content: `${name} saw ${note}` };
        },
      });
    const parallel = [
      peek('peek', { isReadOnly: true }),
      peek('tally', { idempotent: true }),
      peek('poke', {}),
      ...tools(runs),
    ];
    const script = [
      {
        functionCalls: [
          { name: 'peek', arguments: { note: 'a' }, callId: 'p1' },
          { name: 'poke', arguments: { note: 'b' }, callId: 'p2' },
          { name: 'tally', arguments: { note: 'c' }, callId: 'p3' },
          { name: 'peek', arguments: { note: 'd' }, callId: 'p4' },
          // Sequential: runs after the parallel run, so its start is its own write.
          { name: 'look', arguments: { note: 'e' }, callId: 'p5' },
        ],
      },
      { text: 'done' },
    ];
    const { journal, log, kept } = memoryJournal();
    const { result } = await runTurn(script, {
      tools: parallel,
      journal,
      turnId: 'turn_p',
      maxParallelCalls: 3,
    });
    expect(result.status).toBe('completed');
    // Of the three that start at once (maxParallelCalls 3), the read-only and the idempotent one; the
    // fourth waits for a free slot and the fifth for the run, so each records its own start.
    expect(log[0]).toBe('response 1 with started 1,3');
    expect(log.filter((line) => line.startsWith('started')).sort()).toEqual([
      'started 2',
      'started 4',
      'started 5',
    ]);
    expect(kept.responses[0]?.started).toEqual([
      { itemIndex: 1, callId: 'p1', key: 'peek', idempotencyKey: 'turn_p:1' },
      { itemIndex: 3, callId: 'p3', key: 'tally', idempotencyKey: 'turn_p:3' },
    ]);
    expect(runs).toHaveLength(5);
  });

  it('runs again, with the first key and marked in doubt, a call whose start only its response recorded', async () => {
    const original = memoryJournal();
    await runTurn(TWO_STEPS, { tools: tools([]), journal: original.journal, turnId: 'turn_11' });
    const [response] = original.kept.responses;
    expect(response?.started?.map((start) => start.itemIndex)).toEqual([1]);
    // Only the response was recorded: its first call is in doubt, the others never started.
    const recorded: RecordedTurn = { responses: [response as JournalResponse], started: [], outputs: [] };
    const runs: string[] = [];
    const { events } = await runTurn([{ text: 'all done' }], {
      tools: tools(runs),
      journal: memoryJournal(recorded).journal,
      turnId: 'turn_12',
    });
    expect(runs).toEqual(['look a turn_11:1', 'write b turn_12:2', 'charge c turn_12:3']);
    expect(toolCallEnds(events).map((end) => [end.callId, end.outcome, end.inDoubt ?? false])).toEqual([
      ['c1', 'completed', true],
      ['c2', 'completed', false],
      ['c3', 'completed', false],
    ]);
  });

  it('writes the last output while the budget is asked and the response while it is told, and requests only after both', async () => {
    const order: string[] = [];
    const { journal, log } = memoryJournal();
    let budgetAsked = 0;
    let askedAgain: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      askedAgain = resolve;
    });
    // Each response's write signals its start: the budget, told of the response, waits for it.
    const responseWrites: Array<() => void> = [];
    const responseWriting = [1, 2].map(
      (iteration) =>
        new Promise<void>((resolve) => {
          responseWrites[iteration] = resolve;
        }),
    );
    const within = (promise: Promise<void>) =>
      Promise.race([
        promise.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 1000)),
      ]);
    const overlapping: TurnJournal = {
      ...journal,
      callFinished: async (entry) => {
        order.push(`writing output ${entry.itemIndex}`);
        if (entry.itemIndex === 3) {
          // The last call's write waits for the budget's next check (a second at most): they overlap.
          const overlapped = await within(asked);
          order.push(overlapped ? 'budget asked meanwhile' : 'budget not asked meanwhile');
        }
        await journal.callFinished(entry);
        order.push(`wrote output ${entry.itemIndex}`);
      },
      response: async (entry) => {
        order.push(`writing response ${entry.iteration}`);
        responseWrites[entry.iteration]?.();
        await journal.response(entry);
      },
    };
    const { result } = await runTurn(
      [
        TWO_STEPS[0] as FakeScriptStep,
        () => {
          order.push('request 2');
          return { text: 'all done' };
        },
      ],
      {
        tools: tools([]),
        journal: overlapping,
        turnId: 'turn_13',
        budget: {
          beforeRequest: () => {
            budgetAsked += 1;
            order.push(`budget asked ${budgetAsked}`);
            if (budgetAsked === 2) askedAgain();
            return undefined;
          },
          afterResponse: async () => {
            order.push('budget told');
            const told = responseWriting.shift() ?? Promise.resolve();
            order.push(
              (await within(told)) ? 'response written meanwhile' : 'response not written meanwhile',
            );
          },
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(log.at(-1)).toBe('response 2');
    expect(order).toEqual([
      'budget asked 1',
      'budget told',
      'writing response 1',
      'response written meanwhile',
      'writing output 1',
      'wrote output 1',
      'writing output 2',
      'wrote output 2',
      'writing output 3',
      'budget asked 2',
      'budget asked meanwhile',
      'wrote output 3',
      'request 2',
      'budget told',
      'writing response 2',
      'response written meanwhile',
    ]);
  });
});
