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
export class SearchProviderError extends Error {
  constructor(
    readonly kind: SearchFailureKind,
    message: string,
    readonly status?: number,
    /** Seconds to wait, from `Retry-After`, for `rate-limited`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SearchProviderError';
  }
}
