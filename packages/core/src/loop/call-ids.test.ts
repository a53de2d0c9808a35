// Call ids are whatever the endpoint sends: through the real SDK and the fake server, calls of one
// response that share an id are refused (none runs), and an id reused in a later response is a new
// call, told apart by where its item sits in the transcript.

import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { ToolCallRequest } from '../index';
import { runTurn, toolCallEnds } from './__fixtures__/loop-test-helpers';
import { readFileTool } from './__fixtures__/test-tools';

describe('call ids', () => {
  it('runs none of the calls of one response that share a call id, and tells the model why', async () => {
    const asked: ToolCallRequest[] = [];
    const { result, events, server } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'read_file', arguments: { path: 'shown.txt' }, callId: 'call_same' },
            { name: 'read_file', arguments: { path: 'hidden.txt' }, callId: 'call_same' },
            { name: 'read_file', arguments: { path: 'own.txt' }, callId: 'call_own' },
          ],
        },
        { text: 'done' },
      ],
      {
        tools: [readFileTool],
        beforeToolCall: (call) => {
          asked.push(call);
          return { allow: true };
        },
      },
    );
    expect(result.status).toBe('completed');
    // Only the call with an id of its own reached the policy and ran.
    expect(asked.map((call) => call.params)).toEqual([{ path: 'own.txt' }]);
    expect(events.filter((event) => event.type === 'tool-call-start').map((event) => event.callId)).toEqual([
      'call_own',
    ]);
    const ends = toolCallEnds(events);
    expect(ends.map((end) => [end.callId, end.outcome, end.itemIndex])).toEqual([
      ['call_same', 'duplicate-call-id', 1],
      ['call_same', 'duplicate-call-id', 2],
      ['call_own', 'completed', 3],
    ]);
    // The next request answers every call, the refused ones with a reason the model can act on.
    const outputs = server.requests[1]?.functionCallOutputs ?? [];
    expect(outputs.map((output) => output.callId)).toEqual(['call_same', 'call_same', 'call_own']);
    expect(String(outputs[0]?.output)).toMatch(
      /2 calls of your last response had the same call id "call_same"/,
    );
    expect(outputs[2]?.output).toBe('text of own.txt');
  });

  it('treats a call id reused in a later response as a new call with its own item index', async () => {
    const asked: Array<Pick<ToolCallRequest, 'callId' | 'itemIndex' | 'params'>> = [];
    const { result, events } = await runTurn(
      [
        { functionCalls: [{ name: 'read_file', arguments: { path: 'first.txt' }, callId: 'call_1' }] },
        { functionCalls: [{ name: 'read_file', arguments: { path: 'second.txt' }, callId: 'call_1' }] },
        { text: 'done' },
      ],
      {
        tools: [readFileTool],
        beforeToolCall: ({ callId, itemIndex, params }) => {
          asked.push({ callId, itemIndex, params });
          return { allow: true };
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(asked).toEqual([
      { callId: 'call_1', itemIndex: 1, params: { path: 'first.txt' } },
      { callId: 'call_1', itemIndex: 3, params: { path: 'second.txt' } },
    ]);
    expect(toolCallEnds(events).map((end) => [end.itemIndex, end.result.content])).toEqual([
      [1, 'text of first.txt'],
      [3, 'text of second.txt'],
    ]);
    // Each item index points at its own call in the transcript.
    expect(result.items[1]).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      arguments: '{"path":"first.txt"}',
    });
    expect(result.items[3]).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      arguments: '{"path":"second.txt"}',
    });
  });

  it('continues a transcript whose later response reused an answered call id: the later call runs', async () => {
    const input: ResponseInputItem[] = [
      { type: 'message', role: 'user', content: 'Read both' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"first.txt"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'text of first.txt' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"second.txt"}' },
    ];
    const { result, events, server } = await runTurn([{ text: 'done' }], { tools: [readFileTool], input });
    expect(result.status).toBe('completed');
    expect(toolCallEnds(events).map((end) => [end.itemIndex, end.result.content])).toEqual([
      [3, 'text of second.txt'],
    ]);
    // The first request already carries the continued call's output, after its call.
    const sent = server.requests[0]?.functionCallOutputs ?? [];
    expect(sent.map((output) => output.output)).toEqual(['text of first.txt', 'text of second.txt']);
  });
});
