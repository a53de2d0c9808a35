import type { LadderRefusalReason } from './argument-ids';

/**
 * Thrown inside the argument ladder to stop at the first refusal; `parseToolArguments` turns it
 * into `{ ok: false, reason, message }`. Internal: never escapes the ladder. Deliberately not an
 * `Error`: capturing a stack trace would cost more than reading most inputs.
 */
export class LadderRefusal {
  constructor(
    /** A stable kebab-case id, e.g. `truncated`. */
    readonly reason: LadderRefusalReason,
    /** What is wrong, for the model. */
    readonly message: string,
    /** A JSON pointer to the one value refused, when the refusal is about one value. */
    readonly path?: string,
  ) {}
}
