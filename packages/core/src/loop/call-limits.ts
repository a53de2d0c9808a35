import { DEFAULT_MAX_TOOL_RESULT_BYTES, MIN_TOOL_RESULT_BYTES } from './cap-tool-result';

/**
 * How long a call that ignores its signal is waited for, by default, before it is reported abandoned:
 * a few seconds, long enough for a tool to finish cleaning up, short enough to keep a turn moving.
 */
export const DEFAULT_ABANDON_GRACE_MS = 5_000;

/** The per-call limits, as `runAgentLoop` and `runToolCallOnce` both take them. */
export interface CallLimitOptions {
  /** Per-call timeout in milliseconds (default none). */
  toolTimeoutMs?: number;
  /** How long a call whose signal fired is waited for before it is reported abandoned (default 5 000). */
  abandonGraceMs?: number;
  /** Most UTF-8 bytes of text one call's output may put before the model (default 65 536). */
  maxToolResultBytes?: number;
}

/** The per-call limits every call of a turn runs under, defaults applied. */
export interface CallLimits {
  /** Per-call timeout, when set. */
  toolTimeoutMs: number | undefined;
  /**
   * How long a call whose signal fired (timeout or abort) is waited for before it is reported
   * abandoned, in milliseconds.
   */
  abandonGraceMs: number;
  /** Most UTF-8 bytes of text a result's content may have; the rest is cut from the middle. */
  maxToolResultBytes: number;
}

/**
 * Checks the per-call limits and applies their defaults: the one place `runAgentLoop` and
 * `runToolCallOnce` (which runs one call as a turn would) agree on what a valid limit is.
 *
 * Contract: throws `TypeError` naming `caller` and the option for a limit out of range.
 */
export function resolveCallLimits(caller: string, options: CallLimitOptions): CallLimits {
  const { toolTimeoutMs, abandonGraceMs, maxToolResultBytes } = options;
  if (toolTimeoutMs !== undefined && !(Number.isFinite(toolTimeoutMs) && toolTimeoutMs > 0)) {
    throw new TypeError(`${caller}: toolTimeoutMs must be a positive number, got ${toolTimeoutMs}`);
  }
  if (abandonGraceMs !== undefined && !(Number.isFinite(abandonGraceMs) && abandonGraceMs >= 0)) {
    throw new TypeError(`${caller}: abandonGraceMs must be a number >= 0, got ${abandonGraceMs}`);
  }
  if (
    maxToolResultBytes !== undefined &&
    !(Number.isSafeInteger(maxToolResultBytes) && maxToolResultBytes >= MIN_TOOL_RESULT_BYTES)
  ) {
    throw new TypeError(
      `${caller}: maxToolResultBytes must be an integer >= ${MIN_TOOL_RESULT_BYTES}, got ${maxToolResultBytes}`,
    );
  }
  return {
    toolTimeoutMs,
    abandonGraceMs: abandonGraceMs ?? DEFAULT_ABANDON_GRACE_MS,
    maxToolResultBytes: maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES,
  };
}
