import type {
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
  ResponseToolSearchCall,
  ResponseToolSearchOutputItem,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { inputItemKeys } from '../loop/__fixtures__/request-body-types';
import { toReplayItems } from './replay-items';

// Each output item with every field its SDK type has (`Required<...>`: a field the SDK adds later is
// a type error here until the replay and this test know it), replayed and compared field by field
// with the SDK's input type for that item (the key tables `tsc` checks in `request-body-types.ts`).
const fullMessage: Required<ResponseOutputMessage> = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  phase: 'commentary',
  content: [
    { type: 'output_text', text: 'Let me look.', annotations: [], logprobs: [] },
    { type: 'refusal', refusal: ' Not that.' },
  ],
};
const fullReasoning: Required<ResponseReasoningItem> = {
  id: 'rs_1',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'look first' }],
  content: [{ type: 'reasoning_text', text: 'the file may hold it' }],
  encrypted_content: 'gAAAA-secret',
  status: 'completed',
};
const fullFunctionCall: Required<ResponseFunctionToolCall> = {
  id: 'fc_1',
  type: 'function_call',
  call_id: 'call_1',
  name: 'read',
  arguments: '{}',
  namespace: 'files',
  caller: { type: 'direct' },
  status: 'completed',
};
const fullToolSearchCall: Required<ResponseToolSearchCall> = {
  id: 'tsc_1',
  type: 'tool_search_call',
  arguments: { query: 'x' },
  call_id: null,
  execution: 'server',
  status: 'completed',
  created_by: 'server',
};
const fullToolSearchOutput: Required<ResponseToolSearchOutputItem> = {
  id: 'tso_1',
  type: 'tool_search_output',
  tools: [],
  call_id: null,
  execution: 'server',
  status: 'completed',
  created_by: 'server',
};

const fullOutput: ResponseOutputItem[] = [
  fullReasoning,
  fullMessage,
  fullFunctionCall,
  fullToolSearchCall,
  fullToolSearchOutput,
];

// A short output (the reasoning without encrypted content) for the store and stateless cases.
const output = [
  { id: 'rs_1', type: 'reasoning', summary: [], status: 'completed' },
  fullToolSearchCall,
  {
    id: 'fc_1',
    type: 'function_call',
    call_id: 'call_1',
    name: 'read',
    arguments: '{}',
    status: 'completed',
    namespace: 'files',
  },
] as ResponseOutputItem[];

describe('toReplayItems', () => {
  it('never mutates the output and keeps every id with store', () => {
    const before = structuredClone(output);
    const items = toReplayItems(output, { stateless: false });
    expect(output).toEqual(before);
    expect(items.map((item) => (item as { id?: string }).id)).toEqual(['rs_1', 'tsc_1', 'fc_1']);
    expect(items[1]).not.toHaveProperty('created_by');
    expect(items[0]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], status: 'completed' });
  });

  it('stateless, drops a reasoning item without encrypted content and the ids after it', () => {
    const items = toReplayItems(output, { stateless: true });
    expect(items.map((item) => item.type)).toEqual(['tool_search_call', 'function_call']);
    expect(items.every((item) => !('id' in item))).toBe(true);
    expect(items[1]).toEqual({
      type: 'function_call',
      call_id: 'call_1',
      name: 'read',
      arguments: '{}',
      namespace: 'files',
      status: 'completed',
    });
  });
});

/** The fields of `item` its input type has: what a replay must carry. */
function inputFieldsOf(item: ResponseOutputItem): string[] {
  const allowed: Record<string, true> = inputItemKeys[item.type as keyof typeof inputItemKeys];
  return Object.keys(item)
    .filter((key) => key in allowed)
    .sort();
}

describe('every field the input type has', () => {
  it('replays each output item with exactly the fields its SDK input type has', () => {
    const items = toReplayItems(fullOutput, { stateless: false });
    expect(items.map((item) => Object.keys(item).sort())).toEqual(fullOutput.map(inputFieldsOf));
    expect(items[1]).toMatchObject({ phase: 'commentary', status: 'completed' });
    expect(items[0]).toMatchObject({
      content: [{ type: 'reasoning_text', text: 'the file may hold it' }],
      status: 'completed',
    });
    expect(items[2]).toMatchObject({ caller: { type: 'direct' } });
  });

  it('stateless without encrypted reasoning, keeps every field but the ids, phase included', () => {
    const { encrypted_content: _left, ...withoutEncrypted } = fullReasoning;
    const output: ResponseOutputItem[] = [withoutEncrypted, ...fullOutput.slice(1)];
    const items = toReplayItems(output, { stateless: true });
    expect(items[0]).toEqual({
      type: 'message',
      role: 'assistant',
      content: 'Let me look. Not that.',
      phase: 'commentary',
    });
    expect(Object.keys(items[0] ?? {}).filter((key) => !(key in inputItemKeys.message))).toEqual([]);
    expect(items.slice(1).map((item) => Object.keys(item).sort())).toEqual(
      output.slice(2).map((item) => inputFieldsOf(item).filter((key) => key !== 'id')),
    );
  });

  it('sends no phase, caller or reasoning content the output item did not have', () => {
    const items = toReplayItems(output, { stateless: false });
    expect(items[0]).not.toHaveProperty('content');
    expect(items[2]).not.toHaveProperty('caller');
    const plain = toReplayItems([{ ...fullMessage, phase: undefined }], { stateless: false });
    expect(plain[0]).not.toHaveProperty('phase');
  });
});
