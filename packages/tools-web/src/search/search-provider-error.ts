import { SwitchyardError } from '@switchyard/core';

/** Why a provider call failed. */
export type SearchFailureKind =
  | 'unauthorized'
  | 'rate-limited'
  | 'unavailable'
  | 'rejected'
  | 'malformed'
  | 'network'
  | 'timeout';

/** A provider call that failed; the tool turns it into an `isError` result. Internal. */
export class SearchProviderError extends SwitchyardError {
  constructor(
    readonly kind: SearchFailureKind,
    message: string,
    readonly status?: number,
    /** Seconds to wait, from `Retry-After`, for `rate-limited` and `unavailable`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.markAs('SearchProviderError');
  }

  static override isInstance(value: unknown): value is SearchProviderError {
    return SwitchyardError.hasMark(value, 'SearchProviderError');
  }
}
