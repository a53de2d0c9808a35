import type { FakeRequest, FakeResponse } from './fake-script';

type Json = Record<string, unknown>;

/** A built response: the SSE events to stream, the final response object, and where a cut goes. */
export interface BuiltFakeResponse {
  /** The streamed events, each `{ type, sequence_number, ... }`. */
  events: Json[];
  /** The final response object (also the non-streaming answer). */
  response: Json;
  /** Index in `events` to cut before, for `cut: 'mid-arguments'`. */
  cutAt: number | undefined;
}

function split(text: string, parts: number): string[] {
  const count = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}

function findTools(request: FakeRequest, keys: readonly string[]): Json[] {
  const wanted = new Set(keys);
  const found: Json[] = [];
  for (const tool of request.body.tools ?? []) {
    if (tool.type === 'function' && wanted.has(String(tool.name))) found.push(tool);
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      const inner = (tool.tools as Json[]).filter((entry) =>
        wanted.has(`${String(tool.name)}.${String(entry.name)}`),
      );
      if (inner.length > 0) found.push({ ...tool, tools: inner });
    }
  }
  return found;
}

/** Builds the event sequence the `openai` SDK expects for one scripted response. */
export function buildFakeResponse(
  step: FakeResponse,
  request: FakeRequest,
  bodyBytes: number,
): BuiltFakeResponse {
  const number = request.index + 1;
  const id = step.id ?? `resp_fake_${number}`;
  const events: Json[] = [];
  const output: Json[] = [];
  let cutAt: number | undefined;
  let outputCharacters = 0;
  const push = (event: Json) => events.push({ ...event, sequence_number: events.length });

  const base = responseBase(request, id, number);
  push({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  push({ type: 'response.in_progress', response: { ...base, status: 'in_progress', output: [] } });

  const addItem = (item: Json, body?: (outputIndex: number) => void) => {
    const outputIndex = output.length;
    push({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { ...item, ...inProgress(item) },
    });
    body?.(outputIndex);
    push({ type: 'response.output_item.done', output_index: outputIndex, item });
    output.push(item);
  };

  if (step.reasoning) {
    addItem({
      id: `rs_${number}`,
      type: 'reasoning',
      summary: step.reasoning.summary ? [{ type: 'summary_text', text: step.reasoning.summary }] : [],
      ...(step.reasoning.encryptedContent === undefined
        ? {}
        : { encrypted_content: step.reasoning.encryptedContent }),
    });
  }
  if (step.toolSearch) {
    addItem({
      id: `tsc_${number}`,
      type: 'tool_search_call',
      call_id: null,
      execution: 'server',
      status: 'completed',
      arguments: { query: step.toolSearch.query },
      // Output-only, as the Responses API sends it: a client must not replay it.
      created_by: 'fake-server',
    });
    addItem({
      id: `tso_${number}`,
      type: 'tool_search_output',
      call_id: null,
      execution: 'server',
      status: 'completed',
      tools: findTools(request, step.toolSearch.load),
      created_by: 'fake-server',
    });
  }
  if (step.text !== undefined) {
    const text = step.text;
    outputCharacters += text.length;
    const itemId = `msg_${number}`;
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    addItem(messageItem(itemId, part, step.phase), (outputIndex) => {
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      push({ type: 'response.content_part.added', ...at, part: { ...part, text: '' } });
      for (const delta of split(text, step.textChunks ?? 3)) {
        push({ type: 'response.output_text.delta', ...at, delta, logprobs: [] });
      }
      push({ type: 'response.output_text.done', ...at, text, logprobs: [] });
      push({ type: 'response.content_part.done', ...at, part });
    });
  }
  (step.functionCalls ?? []).forEach((call, position) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    outputCharacters += args.length;
    const itemId = `fc_${number}_${position}`;
    const item: Json = {
      id: itemId,
      type: 'function_call',
      call_id: call.callId ?? `call_${number}_${position}`,
      name: call.name,
      ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
      arguments: args,
      status: 'completed',
    };
    addItem(item, (outputIndex) => {
      const deltas = split(args, call.chunks ?? 3);
      deltas.forEach((delta, index) => {
        if (step.cut === 'mid-arguments' && cutAt === undefined && index === Math.floor(deltas.length / 2)) {
          cutAt = events.length;
        }
        push({
          type: 'response.function_call_arguments.delta',
          item_id: itemId,
          output_index: outputIndex,
          delta,
        });
      });
      push({
        type: 'response.function_call_arguments.done',
        item_id: itemId,
        output_index: outputIndex,
        name: call.name,
        arguments: args,
      });
    });
  });

  const { response, finalType } = finalResponse(step, base, output, bodyBytes, outputCharacters);
  if (step.cut === 'mid-arguments' && cutAt === undefined) cutAt = events.length;
  if (step.cut !== 'before-completed') push({ type: finalType, response });
  return { events, response, cutAt };
}

/** The fields every event's response shares, echoed from the request as the API does. */
function responseBase(request: FakeRequest, id: string, number: number): Json {
  return {
    id,
    object: 'response',
    created_at: 1_700_000_000 + number,
    model: request.body.model ?? 'fake-model',
    instructions: request.body.instructions ?? null,
    tools: request.body.tools ?? [],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: null,
    top_p: null,
    metadata: {},
    previous_response_id: request.body.previous_response_id ?? null,
    store: request.body.store ?? true,
    text: { format: { type: 'text' } },
    error: null,
    incomplete_details: null,
  };
}

/** The finished response (usage counted from the request's and the output's size) and its final event's type. */
function finalResponse(
  step: FakeResponse,
  base: Json,
  output: Json[],
  bodyBytes: number,
  outputCharacters: number,
): { response: Json; finalType: string } {
  const usage = {
    input_tokens: step.usage?.inputTokens ?? Math.ceil(bodyBytes / 4),
    input_tokens_details: { cached_tokens: step.usage?.cachedInputTokens ?? 0 },
    output_tokens: step.usage?.outputTokens ?? Math.ceil(outputCharacters / 4),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 0,
  };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const incomplete = step.finishReason !== undefined;
  const response: Json = {
    ...base,
    status: step.failed !== undefined ? 'failed' : incomplete ? 'incomplete' : 'completed',
    output,
    usage,
    ...(incomplete ? { incomplete_details: { reason: step.finishReason } } : {}),
    ...(step.failed !== undefined ? { error: { code: 'server_error', message: step.failed } } : {}),
  };
  const finalType =
    step.failed !== undefined ? 'response.failed' : incomplete ? 'response.incomplete' : 'response.completed';
  return { response, finalType };
}

/** An assistant message item, with the scripted `phase` when there is one. */
function messageItem(id: string, part: Json, phase: FakeResponse['phase']): Json {
  return {
    id,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [part],
    ...(phase ? { phase } : {}),
  };
}

function inProgress(item: Json): Json {
  if (item.type === 'message') return { status: 'in_progress', content: [] };
  if (item.type === 'function_call') return { status: 'in_progress', arguments: '' };
  return {};
}
