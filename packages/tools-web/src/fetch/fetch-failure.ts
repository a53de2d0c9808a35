import { SwitchyardError } from '@switchyard/core';

/** Why a fetch failed; each becomes an `isError` tool result the model can act on. */
export type FetchFailureKind =
  | 'refused'
  | 'redirects'
  | 'timeout'
  | 'aborted'
  | 'too-large'
  | 'content-type'
  | 'http-status'
  | 'network';

/** A fetch that did not produce a page. Internal: the tool turns it into an error result. */
export class FetchFailure extends SwitchyardError {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.markAs('FetchFailure');
  }

  static override isInstance(value: unknown): value is FetchFailure {
    return SwitchyardError.hasMark(value, 'FetchFailure');
  }
}
