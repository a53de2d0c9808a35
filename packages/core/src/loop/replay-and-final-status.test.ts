// What the loop replays and how it ends, through the real openai SDK against the fake server: every
// output item rebuilt as its input type, reasoning kept with the calls that depend on it, and a final
// response cut off reported as such.

import type { FakeResponse } from '@switchyard/fake-responses-server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool } from '../index';
import { runTurn } from './__fixtures__/loop-test-helpers';
import { expectRequestTypes, fieldsOutsideRequestTypes } from './__fixtures__/request-body-types';
import { readFileTool } from './__fixtures__/test-tools';

const createInvoice = defineWorkerTool({
  name: 'create_invoice',
  namespace: 'billing',
  description: 'Create an invoice for a customer.',
  deferLoading: true,
  schema: z.object({ title: z.string() }),
  describeActivity: ({ title }) => `Invoicing ${title}`,
  execute: ({ title }) => ({ content: `invoice ${title}` }),
});

type Item = Record<string, unknown>;

function firstResponse(encryptedContent: string | undefined): FakeResponse {
  return {
    reasoning: {
      summary: 'look first',
      ...(encryptedContent === undefined ? {} : { encryptedContent }),
    },
    text: 'Let me look.',
    functionCalls: [{ name: 'read_file', arguments: { path: 'a' }, callId: 'call_a' }],
  };
}

async function replayOf(store: boolean, encryptedContent: string | undefined) {
  const { result, server } = await runTurn([firstResponse(encryptedContent), { text: 'done' }], {
    tools: [readFileTool],
    model: { reasoning: { effort: 'low' }, store },
  });
  expect(result.status).toBe('completed');
  const bodies = server.requests.map((request) => request.body);
  expectRequestTypes(bodies);
  return { first: bodies[0], input: bodies[1]?.input as Item[] };
}

const functionCallOutput = { type: 'function_call_output', call_id: 'call_a', output: 'text of a' };

describe('stateless replay of reasoning (store x encrypted content)', () => {
  it('store false, encrypted content: asks for it by default and replays the reasoning item with it', async () => {
    const { first, input } = await replayOf(false, 'gAAAA-secret');
    expect(first?.store).toBe(false);
    expect(first?.include).toEqual(['reasoning.encrypted_content']);
    expect(input.slice(1)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'look first' }],
        encrypted_content: 'gAAAA-secret',
      },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Let me look.', annotations: [], logprobs: [] }],
      },
      {
        type: 'function_call',
        id: 'fc_1_0',
        call_id: 'call_a',
        name: 'read_file',
        arguments: '{"path":"a"}',
        status: 'completed',
      },
      functionCallOutput,
    ]);
  });

  it('store false, no encrypted content: leaves the reasoning out and the items after it without their ids', async () => {
    const { first, input } = await replayOf(false, undefined);
    expect(first?.include).toEqual(['reasoning.encrypted_content']);
    expect(input.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: 'Let me look.' },
      {
        type: 'function_call',
        call_id: 'call_a',
        name: 'read_file',
        arguments: '{"path":"a"}',
        status: 'completed',
      },
      functionCallOutput,
    ]);
  });

  it('store true, encrypted content: asks for nothing extra and replays every item with its id', async () => {
    const { first, input } = await replayOf(true, 'gAAAA-secret');
    expect(first?.store).toBe(true);
    expect(first?.include).toBeUndefined();
    expect(input.map((item) => [item.type, item.id])).toEqual([
      ['message', undefined],
      ['reasoning', 'rs_1'],
      ['message', 'msg_1'],
      ['function_call', 'fc_1_0'],
      ['function_call_output', undefined],
    ]);
    expect(input[1]?.encrypted_content).toBe('gAAAA-secret');
  });

  it('store true, no encrypted content: the stored reasoning item is replayed by its id', async () => {
    const { first, input } = await replayOf(true, undefined);
    expect(first?.include).toBeUndefined();
    expect(input[1]).toEqual({
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'look first' }],
    });
    expect(input.map((item) => item.id)).toEqual([undefined, 'rs_1', 'msg_1', 'fc_1_0', undefined]);
  });

  it('keeps the include the caller asked for and adds encrypted reasoning only once', async () => {
    const { server } = await runTurn([{ text: 'done' }], {
      tools: [readFileTool],
      model: {
        reasoning: { effort: 'low' },
        include: ['message.output_text.logprobs', 'reasoning.encrypted_content'],
      },
    });
    expect(server.requests[0]?.body.include).toEqual([
      'message.output_text.logprobs',
      'reasoning.encrypted_content',
    ]);
  });

  it('asks for no encrypted reasoning without reasoning on', async () => {
    const { server } = await runTurn([{ text: 'done' }], {
      tools: [readFileTool],
      model: { reasoning: { effort: 'none' } },
    });
    expect(server.requests[0]?.body.include).toBeUndefined();
    const plain = await runTurn([{ text: 'done' }], { tools: [readFileTool] });
    expect(plain.server.requests[0]?.body.include).toBeUndefined();
  });
});

describe('output items replayed as input items', () => {
  it.each([
    [true, 'gAAAA-secret'],
    [false, 'gAAAA-secret'],
    [false, undefined],
  ] as const)('replays the phase of an assistant message (store %s, encrypted content %s)', async (store, encryptedContent) => {
    const { result, server } = await runTurn(
      [
        { ...firstResponse(encryptedContent), phase: 'commentary' },
        { text: 'done', phase: 'final_answer' },
      ],
      { tools: [readFileTool], model: { reasoning: { effort: 'low' }, store } },
    );
    expect(result.status).toBe('completed');
    const bodies = server.requests.map((request) => request.body);
    expectRequestTypes(bodies);
    const messages = (bodies[1]?.input as Item[]).filter((item) => item.role === 'assistant');
    expect(messages).toHaveLength(1);
    expect(messages[0]?.phase).toBe('commentary');
  });

  it('replays hosted Tool Search items without their output-only created_by', async () => {
    const { server } = await runTurn(
      [
        {
          toolSearch: { query: 'invoice', load: ['billing.create_invoice'] },
          functionCalls: [{ name: 'create_invoice', namespace: 'billing', arguments: { title: 'March' } }],
        },
        { text: 'Invoiced.' },
      ],
      { tools: [readFileTool, createInvoice], toolSearch: 'native' },
    );
    const bodies = server.requests.map((request) => request.body);
    expectRequestTypes(bodies);
    const input = bodies[1]?.input as Item[];
    expect(input[1]).toEqual({
      type: 'tool_search_call',
      id: 'tsc_1',
      arguments: { query: 'invoice' },
      call_id: null,
      execution: 'server',
      status: 'completed',
    });
    expect(Object.keys(input[2] ?? {}).sort()).toEqual([
      'call_id',
      'execution',
      'id',
      'status',
      'tools',
      'type',
    ]);
    expect(input[3]).toMatchObject({ type: 'function_call', namespace: 'billing', name: 'create_invoice' });
  });

  it('the body check itself refuses an output-only field', () => {
    expect(
      fieldsOutsideRequestTypes({
        model: 'm',
        input: [{ type: 'tool_search_call', arguments: {}, created_by: 'x' }],
        bogus: 1,
      }),
    ).toEqual(['bogus', 'input[0].created_by']);
  });
});

describe('a final response cut off', () => {
  it.each([
    'max_output_tokens',
    'content_filter',
  ] as const)("ends the turn 'incomplete' with the reason %s, on the result and on turn-end", async (reason) => {
    const { result, events } = await runTurn(
      [
        { functionCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
        { text: 'The file says', finishReason: reason },
      ],
      { tools: [readFileTool] },
    );
    expect(result).toMatchObject({ status: 'incomplete', incompleteReason: reason, output: 'The file says' });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', status: 'incomplete', incompleteReason: reason });
  });

  it('stays completed when only an earlier response was cut off', async () => {
    const { result, events } = await runTurn(
      [
        {
          functionCalls: [{ name: 'read_file', arguments: { path: 'a' } }],
          finishReason: 'max_output_tokens',
        },
        { text: 'done' },
      ],
      { tools: [readFileTool] },
    );
    expect(result.status).toBe('completed');
    expect(result.incompleteReason).toBeUndefined();
    expect(events.at(-1)).not.toHaveProperty('incompleteReason');
  });
});
