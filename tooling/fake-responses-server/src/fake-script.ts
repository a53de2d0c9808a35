/** One function call a fake response makes. */
export interface FakeFunctionCall {
  /** Tool name. */
  name: string;
  /** Tool namespace, for namespaced tools. */
  namespace?: string;
  /**
   * The arguments: an object is sent as its JSON; a string is sent exactly as given, so it can be
   * malformed (`'{"path": "a"'`) to exercise argument repair and validation.
   */
  arguments: string | Record<string, unknown>;
  /** The `call_id` (default `call_<request>_<position>`). */
  callId?: string;
  /** How many `response.function_call_arguments.delta` events carry the arguments (default 3). */
  chunks?: number;
}

/** A scripted model response. Output items are emitted in this order: reasoning, tool search, text, calls. */
export interface FakeResponse {
  /** Assistant text, streamed in `textChunks` deltas. */
  text?: string;
  /** How many `response.output_text.delta` events carry the text (default 3). */
  textChunks?: number;
  /** The text message's `phase` (newer models label commentary and final answers); none by default. */
  phase?: 'commentary' | 'final_answer';
  /** Function calls, in order. */
  functionCalls?: FakeFunctionCall[];
  /** A reasoning item; with `encryptedContent` it carries `encrypted_content`. */
  reasoning?: { summary?: string; encryptedContent?: string };
  /**
   * Hosted (native) Tool Search: a `tool_search_call` and a `tool_search_output` item whose `tools`
   * are the request's tool schemas with these keys (`name` or `namespace.name`). Both carry the
   * output-only `created_by`, as the API's do, so a client that replays them unchanged is caught.
   */
  toolSearch?: { query: string; load: string[] };
  /** Ends the response `incomplete` with `incomplete_details.reason` (event `response.incomplete`). */
  finishReason?: 'max_output_tokens' | 'content_filter';
  /** Ends the stream with `response.failed` carrying this error message. */
  failed?: string;
  /**
   * Breaks the stream: `'mid-arguments'` destroys the connection after half of the first function
   * call's argument deltas; `'before-completed'` ends the body cleanly without the final event.
   */
  cut?: 'mid-arguments' | 'before-completed';
  /**
   * Milliseconds to wait, once the request has been read and the step chosen (a step function may
   * return it too), before answering: streaming or not, the whole answer then goes out as usual.
   * Use it to hold a model request in flight (to abort it, or to act while a turn waits on it).
   *
   * Contract: if the client aborts meanwhile, the wait ends, nothing is sent and nothing is recorded
   * in `errors` (the server serves the next request as usual); `close()` ends pending waits without
   * waiting for them. A value that is not a finite number >= 0 fails the request like a throwing
   * step (HTTP 400, recorded in `errors`).
   *
   * @example
   * const server = await startFakeResponsesServer({ script: [{ delayMs: 300, text: 'late' }] });
   */
  delayMs?: number;
  /**
   * Milliseconds between streamed events (default 0: the whole stream is written at once); the
   * pause ends early when the client or the server closes the connection. Ignored without `stream`.
   */
  eventDelayMs?: number;
  /** Usage to report (default: input bytes / 4 and output characters / 4). */
  usage?: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number };
  /** The response id (default `resp_fake_<request number>`). */
  id?: string;
}

/** A scripted HTTP error answer, e.g. `{ httpStatus: 429 }`. */
export interface FakeHTTPError {
  /** The status code: 429 and 5xx are retried by the SDK, 4xx are not. */
  httpStatus: number;
  /** The error message in the body. */
  message?: string;
  /**
   * Extra headers. `retry-after-ms: 1` is sent unless this gives `retry-after-ms` or `retry-after`, so
   * retries are instant unless the step says when to come back.
   */
  headers?: Record<string, string>;
}

/** The body the fake server received, as parsed JSON. */
export interface FakeRequestBody {
  /** The model name. */
  model?: string;
  /** Whether the client asked for a stream. */
  stream?: boolean;
  /** The input items (or string). */
  input?: unknown;
  /** The tools array. */
  tools?: Array<Record<string, unknown>>;
  /** The chained response id, if any. */
  previous_response_id?: string;
  /** Every other field, as sent. */
  [field: string]: unknown;
}

/** One request the fake server received. */
export interface FakeRequest {
  /** 0-based position among the requests this server received. */
  index: number;
  /** The parsed body. */
  body: FakeRequestBody;
  /** The request headers. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * Keys of the function tools sent (`name`, or `namespace.name` inside a namespace), in order,
   * plus `tool_search` for a hosted Tool Search tool.
   */
  toolNames: string[];
  /** Keys of the function tools sent with `defer_loading: true`. */
  deferredToolNames: string[];
  /** The `function_call_output` items of the input, in order. */
  functionCallOutputs: Array<{ callId: string; output: unknown }>;
}

/** A script step: a response, an HTTP error, or a function of the request returning one. */
export type FakeScriptStep =
  | FakeResponse
  | FakeHTTPError
  | ((request: FakeRequest) => FakeResponse | FakeHTTPError | Promise<FakeResponse | FakeHTTPError>);

/** Options of `startFakeResponsesServer`. */
export interface FakeResponsesServerOptions {
  /**
   * Steps answered in order, one per request (a retried request takes the next step), or one
   * function answering every request. More can be added with `server.add`.
   */
  script?:
    | FakeScriptStep[]
    | ((request: FakeRequest) => FakeResponse | FakeHTTPError | Promise<FakeResponse | FakeHTTPError>);
  /** Keep every request in `server.requests` (default true; a benchmark may turn it off). */
  record?: boolean;
}
