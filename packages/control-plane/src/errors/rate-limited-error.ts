import { SwitchyardError } from '@switchyard/core';

/**
 * Work an agent asked to start beyond one of its hourly limits (schedules created, workflows or
 * background jobs started): refused before anything is written.
 *
 * Contract: the message says which limit, how much of it the last hour used and when there is room
 * again; a tool's caller (the model) reads it as the call's error, the HTTP API answers `429` with
 * `Retry-After: retryAfterSeconds`.
 */
export class RateLimitedError extends SwitchyardError {
  /** The limit at fault, as the worker's configuration names it: `schedulesPerHour`, `workflowsPerHour`, ... */
  readonly limit: string;
  /** Whole seconds until the oldest start counted in the last hour leaves it (at least 1). */
  readonly retryAfterSeconds: number;

  constructor(limit: string, message: string, retryAfterSeconds: number) {
    super(message);
    this.markAs('RateLimitedError');
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  static override isInstance(value: unknown): value is RateLimitedError {
    return SwitchyardError.hasMark(value, 'RateLimitedError');
  }
}
