// Core's loop through the real openai SDK against the fake server: dispatch order and batching.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, type ToolExecutionMode } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { waitingTool } from './__fixtures__/test-tools';

function loggingTool(name: string, executionMode: ToolExecutionMode, log: string[]) {
  return waitingTool(name, executionMode, {
    start: (id) => log.push(`start ${id}`),
    end: (id) => log.push(`end ${id}`),
  });
}

function call(name: string, id: string, waitMs: number) {
  return { name, arguments: { id, waitMs }, callId: `call_${id}` };
}

describe('dispatch order', () => {
  it('runs consecutive parallel calls concurrently: every start comes before any end', async () => {
    const log: string[] = [];
    const { result } = await runTurn(
      [
        { functionCalls: [call('fetch', 'a', 15), call('fetch', 'b', 5), call('fetch', 'c', 10)] },
        { text: 'ok' },
      ],
      { tools: [loggingTool('fetch', 'parallel', log)] },
    );
    expect(result.status).toBe('completed');
    expect(log.slice(0, 3)).toEqual(['start a', 'start b', 'start c']);
    expect(log.slice(3).sort()).toEqual(['end a', 'end b', 'end c']);
  });

  it('runs a sequential call alone: it waits for all before it and blocks all after it', async () => {
    const log: string[] = [];
    const tools = [loggingTool('fetch', 'parallel', log), loggingTool('write', 'sequential', log)];
    const { result } = await runTurn(
      [
        {
          functionCalls: [
            call('fetch', 'p1', 10),
            call('fetch', 'p2', 1),
            call('write', 's', 1),
            call('fetch', 'p3', 1),
            call('fetch', 'p4', 1),
          ],
        },
        { text: 'ok' },
      ],
      { tools },
    );
    expect(result.status).toBe('completed');
    const at = (entry: string) => log.indexOf(entry);
    expect(Math.max(at('end p1'), at('end p2'))).toBeLessThan(at('start s'));
    expect(at('end s')).toBe(at('start s') + 1);
    expect(at('end s')).toBeLessThan(Math.min(at('start p3'), at('start p4')));
    // p3 and p4 overlap each other.
    expect(Math.max(at('start p3'), at('start p4'))).toBeLessThan(Math.min(at('end p3'), at('end p4')));
  });

  it('runs two sequential calls one after the other', async () => {
    const log: string[] = [];
    await runTurn([{ functionCalls: [call('write', 'x', 5), call('write', 'y', 1)] }, { text: 'ok' }], {
      tools: [loggingTool('write', 'sequential', log)],
    });
    expect(log).toEqual(['start x', 'end x', 'start y', 'end y']);
  });

  it('records outputs in call order, whatever order the calls finish in', async () => {
    // Finishing order is forced without timers: each call waits for a gate, opened once all three
    // have started and then one after another in the order fast, mid, slow.
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const finishOrder = ['fast', 'mid', 'slow'];
    const open = (id: string | undefined) => (id === undefined ? undefined : gates.get(id)?.());
    const gated = defineWorkerTool({
      name: 'fetch',
      description: 'Waits for its gate.',
      schema: z.object({ id: z.string(), waitMs: z.number() }),
      executionMode: 'parallel',
      describeActivity: ({ id }) => `Fetching ${id}`,
      async execute({ id }) {
        log.push(`start ${id}`);
        const gate = new Promise<void>((resolve) => gates.set(id, resolve));
        if (gates.size === finishOrder.length) open(finishOrder[0]);
        await gate;
        log.push(`end ${id}`);
        open(finishOrder[finishOrder.indexOf(id) + 1]);
        return { content: `done ${id}` };
      },
    });
    const { result, events, server } = await runTurn(
      [
        { functionCalls: [call('fetch', 'slow', 0), call('fetch', 'fast', 0), call('fetch', 'mid', 0)] },
        { text: 'ok' },
      ],
      { tools: [gated] },
    );
    expect(log).toEqual(['start slow', 'start fast', 'start mid', 'end fast', 'end mid', 'end slow']);
    expect(server.requests[1]?.functionCallOutputs).toEqual([
      { callId: 'call_slow', output: 'done slow' },
      { callId: 'call_fast', output: 'done fast' },
      { callId: 'call_mid', output: 'done mid' },
    ]);
    const outputs = result.items.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.call_id)).toEqual(['call_slow', 'call_fast', 'call_mid']);
    // Events report completion as it happens.
    expect(toolCallEnds(events).map((event) => event.callId)).toEqual(['call_fast', 'call_mid', 'call_slow']);
  });

  it('dispatches on (namespace, name): one name in two namespaces reaches the right tool', async () => {
    const make = (namespace: string) =>
      defineWorkerTool({
        name: 'add',
        namespace,
        description: `add in ${namespace}`,
        schema: z.object({}),
        describeActivity: () => 'Adding',
        execute: () => ({ content: `${namespace} add` }),
      });
    const { server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'add', namespace: 'crm', arguments: {} },
            { name: 'add', namespace: 'calc', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
      { tools: [make('calc'), make('crm')] },
    );
    expect(server.requests[0]?.toolNames).toEqual(['calc.add', 'crm.add']);
    expect(server.requests[1]?.functionCallOutputs.map((output) => output.output)).toEqual([
      'crm add',
      'calc add',
    ]);
  });
});
