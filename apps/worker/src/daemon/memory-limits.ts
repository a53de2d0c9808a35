// The defaults of the daemon's memory limits, in a module of their own: the configuration reads them
// without loading the daemon.

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
