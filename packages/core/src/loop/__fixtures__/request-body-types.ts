// The request fields and input-item fields the openai SDK's types allow, as tables that `tsc` checks
// against those types: a table must name every field of its type and nothing else (a missing field
// or an extra one such as `created_by` is a compile error). Tests then check the bodies the loop
// really sent against them, so a body field the SDK's request types do not have fails a test.
import type {
  EasyInputMessage,
  ResponseCreateParamsStreaming,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
  ResponseToolSearchOutputItemParam,
} from 'openai/resources/responses/responses';
import { expect } from 'vitest';

/** Exactly the keys of `T`, each `true`. */
type KeyTable<T> = { [K in keyof Required<T>]: true };

const bodyKeys: KeyTable<ResponseCreateParamsStreaming> = {
  background: true,
  context_management: true,
  conversation: true,
  include: true,
  input: true,
  instructions: true,
  max_output_tokens: true,
  metadata: true,
  model: true,
  moderation: true,
  parallel_tool_calls: true,
  previous_response_id: true,
  prompt: true,
  prompt_cache_key: true,
  prompt_cache_options: true,
  prompt_cache_retention: true,
  reasoning: true,
  safety_identifier: true,
  service_tier: true,
  store: true,
  stream: true,
  stream_options: true,
  temperature: true,
  text: true,
  tool_choice: true,
  tools: true,
  top_logprobs: true,
  top_p: true,
  truncation: true,
  user: true,
};

type MessageKeys = KeyTable<EasyInputMessage> &
  KeyTable<ResponseOutputMessage> &
  KeyTable<ResponseInputItem.Message>;

const messageKeys: MessageKeys = {
  content: true,
  role: true,
  type: true,
  id: true,
  status: true,
  phase: true,
};

/** The fields of each input item type the loop sends, by `type`, as the SDK's input types have them. */
export const inputItemKeys = {
  message: messageKeys,
  function_call: {
    arguments: true,
    call_id: true,
    name: true,
    type: true,
    id: true,
    caller: true,
    namespace: true,
    status: true,
  } satisfies KeyTable<ResponseFunctionToolCall>,
  function_call_output: {
    call_id: true,
    caller: true,
    output: true,
    type: true,
    id: true,
    status: true,
  } satisfies KeyTable<ResponseInputItem.FunctionCallOutput>,
  reasoning: {
    id: true,
    summary: true,
    type: true,
    content: true,
    encrypted_content: true,
    status: true,
  } satisfies KeyTable<ResponseReasoningItem>,
  tool_search_call: {
    arguments: true,
    type: true,
    id: true,
    call_id: true,
    execution: true,
    status: true,
  } satisfies KeyTable<ResponseInputItem.ToolSearchCall>,
  tool_search_output: {
    tools: true,
    type: true,
    id: true,
    call_id: true,
    execution: true,
    status: true,
  } satisfies KeyTable<ResponseToolSearchOutputItemParam>,
} as const;

/**
 * Fields of a captured request body (and of each of its input items) that the SDK's request types
 * do not have, as `field` or `input[i].field`; empty for a body the types accept field by field.
 */
export function fieldsOutsideRequestTypes(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (!(key in bodyKeys)) problems.push(key);
  const input = Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : [];
  input.forEach((item, index) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const allowed = inputItemKeys[type as keyof typeof inputItemKeys] as Record<string, true> | undefined;
    if (allowed === undefined) {
      problems.push(`input[${index}]: item type ${type} is not one the loop sends`);
      return;
    }
    for (const key of Object.keys(item)) if (!(key in allowed)) problems.push(`input[${index}].${key}`);
  });
  return problems;
}

/** Asserts that every captured body has only fields of the SDK's request types. */
export function expectRequestTypes(bodies: ReadonlyArray<Record<string, unknown>>): void {
  expect(
    bodies.flatMap((body, index) => fieldsOutsideRequestTypes(body).map((p) => `#${index}: ${p}`)),
  ).toEqual([]);
}
