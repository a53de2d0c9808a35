import { SwitchyardError } from '@switchyard/core';

/**
 * A turn journal write refused because the turn is no longer running on the worker that wrote it: it
 * ended, or another worker took it over (this one was taken for dead and resumed elsewhere).
 *
 * Contract: nothing was written. The worker stops its run of the turn (core's loop ends it `failed`
 * with this message); the worker that owns the turn now goes on with it.
 */
export class TurnJournalFencedError extends SwitchyardError {
  /** The turn the write was for. */
  readonly turnId: string;

  constructor(turnId: string, workerId: string) {
    super(
      `turn ${turnId} is no longer running on worker ${workerId} (it ended, or another worker took it over): its journal refused the write`,
    );
    this.markAs('TurnJournalFencedError');
    this.turnId = turnId;
  }

  static override isInstance(value: unknown): value is TurnJournalFencedError {
    return SwitchyardError.hasMark(value, 'TurnJournalFencedError');
  }
}
