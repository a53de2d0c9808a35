// The defaults of the daemon's memory and connection limits, in a module of their own: the
// configuration reads them without loading the daemon.

/**
 * Default of `serve.maxEventStreamBytes`: how far (in bytes of events) the reader of an HTTP event
 * stream may fall behind before its stream ends with `event: overflow`.
 */
export const DEFAULT_MAX_EVENT_STREAM_BYTES = 4 * 1024 * 1024;

/**
 * Default of `serve.maxRetainedTurnBytes`: the most bytes of finished turns (their event logs as
 * JSON, text deltas joined, and outputs) kept in memory for the HTTP API.
 */
export const DEFAULT_MAX_RETAINED_TURN_BYTES = 32 * 1024 * 1024;

/**
 * Default of `serve.maxEventStreams`: the most HTTP event streams open at once. Each event is written
 * to every stream on the event loop: while 20 turns ran, `/healthz` took at most 33 to 41 ms with 128
 * streams open, 386 ms with 1,000 and 2.5 s with 4,000.
 */
export const DEFAULT_MAX_EVENT_STREAMS = 128;

/**
 * Default of `serve.bodyTimeoutMs`: how long a request's body may take to arrive, in ms. Its reading
 * holds a connection, and a client that sends a byte now and then would otherwise hold it for
 * Node's five minutes.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
