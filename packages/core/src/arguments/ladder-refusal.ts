/**
 * Thrown inside the argument ladder to stop at the first refusal; `parseToolArguments` turns it
 * into `{ ok: false, reason, message }`. Internal: never escapes the ladder.
 */
export class LadderRefusal extends Error {
  /** A stable kebab-case id, e.g. `truncated`. */
  readonly reason: string;

  constructor(reason: string, message: string) {
    super(message);
    this.name = 'LadderRefusal';
    this.reason = reason;
  }
}
