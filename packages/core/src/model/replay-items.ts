import type {
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
  ResponseToolSearchCall,
  ResponseToolSearchOutputItem,
  ResponseToolSearchOutputItemParam,
} from 'openai/resources/responses/responses';

/** Options of `toReplayItems`. */
export interface ReplayOptions {
  /**
   * The transcript is replayed whole on every request (`store: false`): a reasoning item without
   * `encrypted_content` cannot be sent, and the items after it lose their ids (see below).
   */
  stateless: boolean;
}

// Each function below builds the input item from the fields its input type has, one by one: an
// output item spread as it is carries output-only fields (`created_by` on Tool Search items) that
// the API's input types do not have. Every field the input type has is replayed when the output
// item carries it (`phase` on assistant messages: the SDK's types say newer models degrade when it
// is dropped); `replay-items.test.ts` holds each function to its SDK type's full field list.

function replayMessage(item: ResponseOutputMessage, keepId: boolean): ResponseInputItem {
  if (keepId) {
    return {
      type: 'message',
      id: item.id,
      role: 'assistant',
      status: item.status,
      content: item.content.map((part) =>
        part.type === 'output_text'
          ? {
              type: 'output_text',
              text: part.text,
              annotations: part.annotations,
              ...(part.logprobs === undefined ? {} : { logprobs: part.logprobs }),
            }
          : { type: 'refusal', refusal: part.refusal },
      ),
      ...(item.phase === undefined ? {} : { phase: item.phase }),
    };
  }
  // An output message needs its `msg_` id, which would point at the reasoning item left out: replay
  // what it said as a plain assistant message instead (which has `phase` too).
  const text = item.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join('');
  return {
    type: 'message',
    role: 'assistant',
    content: text,
    ...(item.phase === undefined ? {} : { phase: item.phase }),
  };
}

function replayFunctionCall(item: ResponseFunctionToolCall, keepId: boolean): ResponseFunctionToolCall {
  return {
    type: 'function_call',
    call_id: item.call_id,
    name: item.name,
    arguments: item.arguments,
    ...(keepId && item.id !== undefined ? { id: item.id } : {}),
    ...(item.namespace === undefined || item.namespace === null ? {} : { namespace: item.namespace }),
    ...(item.caller === undefined ? {} : { caller: item.caller }),
    ...(item.status === undefined ? {} : { status: item.status }),
  };
}

function replayReasoning(item: ResponseReasoningItem): ResponseReasoningItem {
  return {
    type: 'reasoning',
    id: item.id,
    summary: item.summary.map((part) => ({ type: 'summary_text', text: part.text })),
    ...(item.content === undefined
      ? {}
      : { content: item.content.map((part) => ({ type: 'reasoning_text', text: part.text })) }),
    ...(item.encrypted_content === undefined || item.encrypted_content === null
      ? {}
      : { encrypted_content: item.encrypted_content }),
    ...(item.status === undefined ? {} : { status: item.status }),
  };
}

function replayToolSearchCall(
  item: ResponseToolSearchCall,
  keepId: boolean,
): ResponseInputItem.ToolSearchCall {
  return {
    type: 'tool_search_call',
    arguments: item.arguments,
    ...(keepId ? { id: item.id } : {}),
    call_id: item.call_id,
    execution: item.execution,
    status: item.status,
  };
}

function replayToolSearchOutput(
  item: ResponseToolSearchOutputItem,
  keepId: boolean,
): ResponseToolSearchOutputItemParam {
  return {
    type: 'tool_search_output',
    tools: item.tools,
    ...(keepId ? { id: item.id } : {}),
    call_id: item.call_id,
    execution: item.execution,
    status: item.status,
  };
}

/**
 * The items of one response as the next request's input: each output item rebuilt as its input
 * type, field by field. Stateless, a reasoning item without `encrypted_content` cannot be replayed
 * (the server kept nothing to look it up by), and an item that keeps the id of something which
 * followed it is refused by the API ("function_call was provided without its required reasoning
 * item"), so every item after such a reasoning item is replayed without its id.
 *
 * Contract: never mutates `output`; items of types the loop never asks for (hosted tools) are
 * passed through as they are.
 */
export function toReplayItems(
  output: readonly ResponseOutputItem[],
  options: ReplayOptions,
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let keepIds = true;
  for (const item of output) {
    switch (item.type) {
      case 'reasoning':
        if (options.stateless && (item.encrypted_content === undefined || item.encrypted_content === null)) {
          keepIds = false;
          continue;
        }
        items.push(replayReasoning(item));
        break;
      case 'message':
        items.push(replayMessage(item, keepIds));
        break;
      case 'function_call':
        items.push(replayFunctionCall(item, keepIds));
        break;
      case 'tool_search_call':
        items.push(replayToolSearchCall(item, keepIds));
        break;
      case 'tool_search_output':
        items.push(replayToolSearchOutput(item, keepIds));
        break;
      default:
        items.push(item as ResponseInputItem);
    }
  }
  return items;
}
