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

const marker = Symbol.for('switchyard.error.FetchFailure');

/** A fetch that did not produce a page. Internal: the tool turns it into an error result. */
export class FetchFailure extends SwitchyardError {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'FetchFailure';
    Object.defineProperty(this, marker, { value: true });
  }

  static override isInstance(value: unknown): value is FetchFailure {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
