// The defaults of the daemon's memory limits, in a module of their own: the configuration reads them
// without loading the daemon.

/**
 * Default of `serve.maxRetainedTurnBytes`: the most bytes of finished turns (their event logs as
 * JSON, text deltas joined, and outputs) kept in memory for the HTTP API.
 */
export const DEFAULT_MAX_RETAINED_TURN_BYTES = 32 * 1024 * 1024;
