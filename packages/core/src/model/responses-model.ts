import type OpenAI from 'openai';
import type {
  ResponseCreateParamsBase,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseUsage,
  Tool,
} from 'openai/resources/responses/responses';
import { ModelRequestError } from '../errors/model-request-error';
import type { AgentUsage } from '../events/agent-event';
import type { ResponsesToolSchema, ToolSearchMode } from '../schema/collect-tool-schemas';
import { isOpenAIEndpoint } from './is-openai-endpoint';
import { toReplayItems } from './replay-items';
import { checkResponseOutput, DEFAULT_MAX_RESPONSE_BYTES, toUsage } from './response-shape';
import { readBoundedText, readServerSentEvents } from './server-sent-events';

/** The part of an `openai` SDK client the adapter uses: `new OpenAI({ baseURL, apiKey, maxRetries })`. */
export type ResponsesClient = Pick<OpenAI, 'responses' | 'baseURL'>;

/** How a turn's requests relate to each other. */
export type ResponsesChaining = 'stateless' | 'previous-response-id';

/** Request fields sent with every request (anything of `responses.create` but what the loop sets). */
export type ResponsesRequestDefaults = Omit<
  ResponseCreateParamsBase,
  'model' | 'input' | 'instructions' | 'tools' | 'stream' | 'previous_response_id'
>;

/** Options of `createResponsesModel`. */
export interface ResponsesModelOptions extends ResponsesRequestDefaults {
  /** An `openai` SDK client; its `maxRetries` governs retries and backoff on 429 and 5xx. */
  client: ResponsesClient;
  /** The model name, e.g. `gpt-5.4-mini`. */
  model: string;
  /**
   * `'stateless'` (default): `store: false` and the whole transcript replayed on every request,
   * each output item rebuilt as its input type. With `reasoning` set (effort other than `'none'`)
   * and no store, `include` gets `'reasoning.encrypted_content'` so reasoning items replay with it;
   * a reasoning item that comes without it anyway is left out and the items after it in its
   * response are replayed without their ids (the API refuses an id whose reasoning item is
   * missing). `'previous-response-id'`:
   * `store: true` and each request sends only the new items plus `previous_response_id`.
   */
  chaining?: ResponsesChaining;
  /** Stream the response (default `true`); `false` for endpoints that cannot stream. */
  stream?: boolean;
  /**
   * The most bytes of one response's body read (default `DEFAULT_MAX_RESPONSE_BYTES`, 32 MiB): a
   * server that sends more (a stream that never ends) fails the request with `ModelRequestError`,
   * and the body is cancelled. A response of 128,000 output tokens streams about 25 MB.
   */
  maxResponseBytes?: number;
}

/** What the loop hands the model for one request. */
export interface ModelRequest {
  /** The whole transcript so far. */
  items: readonly ResponseInputItem[];
  /** Index in `items` of the first item the previous response has not seen. */
  pendingFrom: number;
  /** The previous response's id, `undefined` on the first request. */
  previousResponseId: string | undefined;
  /** System instructions. */
  instructions: string | undefined;
  /** The request's `tools` array. */
  tools: readonly ResponsesToolSchema[];
  /** Aborts the request. */
  signal: AbortSignal | undefined;
  /** Called with each piece of output text as it streams. */
  onTextDelta: (delta: string) => void;
}

/** A model response, reduced to what the loop needs. */
export interface ModelResponse {
  /** The response's id. */
  id: string;
  /** The function calls, in the model's order. */
  functionCalls: ResponseFunctionToolCall[];
  /** The output items to append to the transcript (replayable ones only when stateless). */
  items: ResponseInputItem[];
  /** The output items as received. */
  output: ResponseOutputItem[];
  /** `incomplete_details.reason`, e.g. `max_output_tokens`. */
  finishReason: string | undefined;
  /** This response's usage. */
  usage: AgentUsage;
}

/** The model a loop talks to: what `createResponsesModel` returns. */
export interface ResponsesModel {
  /** The model name. */
  readonly model: string;
  /** Tool Search mode used when the loop is not told: `'native'` on api.openai.com, else `'client'`. */
  readonly defaultToolSearch: ToolSearchMode;
  /**
   * Sends one request and resolves with the whole response.
   *
   * Contract: rejects with `ModelRequestError` for an HTTP error left after the SDK's retries, a
   * connection failure, a stream that ends or breaks before `response.completed`, or a
   * `response.failed`/`error` event; when `signal` aborts it rejects promptly.
   */
  respond(request: ModelRequest): Promise<ModelResponse>;
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

function toModelRequestError(
  error: unknown,
  stage: 'request' | 'stream',
  endpoint: string | undefined,
): ModelRequestError {
  if (ModelRequestError.isInstance(error)) return error;
  const status = (error as { status?: unknown } | null)?.status;
  const statusText = typeof status === 'number' ? ` (HTTP ${status})` : '';
  const what = stage === 'request' ? 'Model request failed' : 'Model response stream broke off';
  // No HTTP status: the endpoint was not reached (refused, unresolvable, timed out). Name it, so an
  // operator sees which URL to fix.
  const where = typeof status === 'number' || endpoint === undefined ? '' : ` (endpoint ${endpoint})`;
  return new ModelRequestError({
    message: `${what}${statusText}: ${describeCause(error)}${where}`,
    ...(typeof status === 'number' ? { status } : {}),
    cause: error,
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The turn was aborted');
}

// The stream events `streamResponse` acts on. Other `response.*` events are dropped unparsed (the
// largest, `response.created` and `response.in_progress`, repeat the request's tools); `error` and
// messages without an event name are always read.
const READ_RESPONSE_EVENTS: ReadonlySet<string> = new Set<OpenAI.Responses.ResponseStreamEvent['type']>([
  'response.output_text.delta',
  'response.output_item.done',
  'response.completed',
  'response.incomplete',
  'response.failed',
]);

function isUnreadResponseEvent(name: string): boolean {
  return name.startsWith('response.') && !READ_RESPONSE_EVENTS.has(name);
}

/**
 * The SDK adds an abort listener to the signal of every request and never removes it, so a
 * long turn would pile listeners onto the turn's signal: give each request its own child signal.
 */
function linkSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; release(): void } {
  if (signal === undefined) return { signal, release: () => {} };
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', onAbort) };
}

/** What every request of one model sends, resolved once by `createResponsesModel`. */
interface ResponsesSettings {
  client: ResponsesClient;
  model: string;
  /** Each request sends only the new items with `previous_response_id`. */
  chained: boolean;
  store: boolean;
  include: ResponseCreateParamsBase['include'];
  requestDefaults: ResponsesRequestDefaults;
  /** The client's base URL, named in the error when the endpoint was not reached. */
  endpoint: string | undefined;
  /** The most bytes of one response's body read. */
  maxResponseBytes: number;
}

function checkModelOptions(options: ResponsesModelOptions): void {
  const { client, model, chaining } = options;
  if (typeof client !== 'object' || client === null || typeof client.responses?.create !== 'function') {
    throw new TypeError('createResponsesModel: client must be an openai SDK client (new OpenAI(...))');
  }
  if (typeof model !== 'string' || model === '') {
    throw new TypeError('createResponsesModel: model must be a non-empty model name');
  }
  if (
    options.maxResponseBytes !== undefined &&
    (!Number.isSafeInteger(options.maxResponseBytes) || options.maxResponseBytes < 1)
  ) {
    throw new TypeError(
      `createResponsesModel: maxResponseBytes must be a whole number of bytes of at least 1, got ${String(options.maxResponseBytes)}`,
    );
  }
  if (chaining !== undefined && chaining !== 'stateless' && chaining !== 'previous-response-id') {
    throw new TypeError(
      `createResponsesModel: chaining must be 'stateless' or 'previous-response-id', got ${JSON.stringify(chaining)}`,
    );
  }
}

function resolveSettings(options: ResponsesModelOptions): ResponsesSettings {
  const {
    client,
    model,
    chaining = 'stateless',
    stream: _stream,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    ...requestDefaults
  } = options;
  const chained = chaining === 'previous-response-id';
  const store = requestDefaults.store ?? chained;
  // Stateless, the server keeps no reasoning to look up by id: ask for it encrypted, so it can be
  // replayed with the function calls that depend on it.
  const reasoningOn =
    requestDefaults.reasoning !== undefined &&
    requestDefaults.reasoning !== null &&
    requestDefaults.reasoning.effort !== 'none';
  const include =
    !store && reasoningOn && !requestDefaults.include?.includes('reasoning.encrypted_content')
      ? [...(requestDefaults.include ?? []), 'reasoning.encrypted_content' as const]
      : requestDefaults.include;
  const endpoint = typeof client.baseURL === 'string' ? client.baseURL : undefined;
  return { client, model, chained, store, include, requestDefaults, endpoint, maxResponseBytes };
}

function buildBody(settings: ResponsesSettings, request: ModelRequest): ResponseCreateParamsBase {
  const { requestDefaults, include, model, store } = settings;
  const sendPending = settings.chained && request.previousResponseId !== undefined;
  return {
    ...requestDefaults,
    ...(include === undefined || include === null ? {} : { include }),
    model,
    store,
    input: (sendPending ? request.items.slice(request.pendingFrom) : request.items) as ResponseInputItem[],
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
    ...(request.tools.length === 0 ? {} : { tools: request.tools as unknown as Tool[] }),
    ...(sendPending ? { previous_response_id: request.previousResponseId } : {}),
  };
}

/**
 * The response as the loop reads it: its function calls, and its items as the transcript replays
 * them. What the server sent is checked first (`checkResponseOutput`, `toUsage`): a malformed response
 * fails its request with `ModelRequestError` naming what is wrong, before anything copies or replays it.
 */
function toModelResponse(
  settings: ResponsesSettings,
  id: unknown,
  output: unknown,
  incomplete: { reason?: unknown } | null | undefined,
  usage: ResponseUsage | undefined,
): ModelResponse {
  if (id !== undefined && typeof id !== 'string') {
    throw new ModelRequestError({ message: 'Model response malformed: its id is not a string' });
  }
  checkResponseOutput(output);
  const functionCalls: ResponseFunctionToolCall[] = [];
  for (const item of output) {
    if (item.type !== 'function_call') continue;
    // Some compatible servers send `namespace: null`; dispatch keys treat absent and null alike.
    if (item.namespace === null) delete item.namespace;
    functionCalls.push(item);
  }
  let items: ResponseInputItem[];
  try {
    // Without store, a reasoning item can only be replayed with its encrypted content.
    items = toReplayItems(output, { stateless: !settings.store });
  } catch (error) {
    // An item of a known type without the fields its type has (a message whose content is no array).
    throw new ModelRequestError({
      message: `Model response malformed: its output cannot be replayed (${describeCause(error)})`,
      cause: error,
    });
  }
  const reason = incomplete?.reason;
  return {
    id: id as string,
    functionCalls,
    items,
    output,
    finishReason: typeof reason === 'string' ? reason : undefined,
    usage: toUsage(usage),
  };
}

/** The text of a response's output messages, as the SDK's `output_text` joins it. */
function outputTextOf(output: readonly ResponseOutputItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
    }
  }
  return text;
}

async function respondOnce(settings: ResponsesSettings, request: ModelRequest): Promise<ModelResponse> {
  const { signal } = request;
  const link = linkSignal(signal);
  let response: OpenAI.Responses.Response;
  try {
    // The SDK makes the request (headers, retries, HTTP errors); the body is read here, under the
    // byte limit the SDK's own reading does not have.
    const answer = await settings.client.responses
      .create({ ...buildBody(settings, request), stream: false }, { signal: link.signal })
      .asResponse();
    response = JSON.parse(
      await readBoundedText(answer.body, settings.maxResponseBytes),
    ) as OpenAI.Responses.Response;
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw toModelRequestError(error, 'request', settings.endpoint);
  } finally {
    link.release();
  }
  if (typeof response !== 'object' || response === null) {
    throw new ModelRequestError({ message: 'Model response malformed: its body is not a JSON object' });
  }
  if (response.status === 'failed') {
    throw new ModelRequestError({
      message: `Model response failed: ${response.error?.message ?? 'no reason given'}`,
    });
  }
  const answer = toModelResponse(
    settings,
    response.id,
    response.output,
    response.incomplete_details,
    response.usage,
  );
  const text = outputTextOf(answer.output);
  if (text) request.onTextDelta(text);
  return answer;
}

async function respondStreaming(settings: ResponsesSettings, request: ModelRequest): Promise<ModelResponse> {
  const link = linkSignal(request.signal);
  try {
    return await streamResponse(settings, request, link.signal);
  } finally {
    link.release();
  }
}

/**
 * Sends the request streaming and reads the stream here: text deltas as they come, each finished
 * output item, and the final response. A function call's item arrives as `response.output_item.done`.
 */
async function streamResponse(
  settings: ResponsesSettings,
  request: ModelRequest,
  requestSignal: AbortSignal | undefined,
): Promise<ModelResponse> {
  const { signal, onTextDelta } = request;
  let body: ReadableStream<Uint8Array> | null;
  try {
    // The SDK makes the request (headers, retries, HTTP errors); the stream is read here.
    const response = await settings.client.responses
      .create({ ...buildBody(settings, request), stream: true }, { signal: requestSignal })
      .asResponse();
    body = response.body;
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw toModelRequestError(error, 'request', settings.endpoint);
  }
  let final: OpenAI.Responses.Response | undefined;
  const doneItems: ResponseOutputItem[] = [];
  const onEvent = (event: OpenAI.Responses.ResponseStreamEvent) => {
    switch (event.type) {
      case 'response.output_text.delta':
        onTextDelta(event.delta);
        break;
      case 'response.output_item.done':
        doneItems.push(event.item);
        break;
      case 'response.completed':
      case 'response.incomplete':
        final = event.response;
        break;
      case 'response.failed':
        throw new ModelRequestError({
          message: `Model response failed: ${event.response.error?.message ?? 'no reason given'}`,
        });
      case 'error':
        throw new ModelRequestError({ message: `Model stream error: ${event.message}` });
    }
  };
  try {
    if (body !== null) {
      await readServerSentEvents(body, onEvent, {
        skipEvent: isUnreadResponseEvent,
        maxBytes: settings.maxResponseBytes,
      });
    }
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw toModelRequestError(error, 'stream', settings.endpoint);
  }
  if (signal?.aborted) throw abortError(signal);
  if (final !== undefined && (typeof final !== 'object' || final === null)) {
    throw new ModelRequestError({ message: 'Model response malformed: its final response is not an object' });
  }
  if (final === undefined) {
    throw new ModelRequestError({
      message:
        'Model response stream broke off: the stream ended before response.completed (connection closed early?)',
    });
  }
  // Some compatible servers send the final response without its output; the streamed items have it.
  const output = Array.isArray(final.output) && final.output.length > 0 ? final.output : doneItems;
  return toModelResponse(settings, final.id, output, final.incomplete_details, final.usage);
}

/**
 * Wraps an `openai` SDK client as the model of `runAgentLoop`: one streaming
 * `client.responses.create` per iteration, against api.openai.com or any OpenAI-compatible
 * `baseURL`. Every other option is sent with each request (`reasoning`, `max_output_tokens`,
 * `include`, ...). Retries come from the client's `maxRetries`.
 *
 * Contract: throws `TypeError` naming the field for a missing `client` or `model`.
 *
 * @example
 * const model = createResponsesModel({
 *   client: new OpenAI({ maxRetries: 3 }),
 *   model: 'gpt-5.4-mini',
 *   reasoning: { effort: 'low' },
 *   include: ['reasoning.encrypted_content'],
 * });
 */
export function createResponsesModel(options: ResponsesModelOptions): ResponsesModel {
  checkModelOptions(options);
  const settings = resolveSettings(options);
  const { stream = true } = options;
  return {
    model: settings.model,
    defaultToolSearch: isOpenAIEndpoint(settings.client.baseURL) ? 'native' : 'client',
    respond: stream
      ? (request) => respondStreaming(settings, request)
      : (request) => respondOnce(settings, request),
  };
}
