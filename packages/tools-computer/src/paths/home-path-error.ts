/** Why a path cannot be used, for callers that act on the reason (never on the message text). */
export type HomePathErrorCode = 'not-found' | 'refused';

/**
 * A path the model gave cannot be used: it leaves the agent home, does not exist, is the wrong kind
 * of file, ... The message is written for the model, which gets it as an `isError` tool result.
 */
export class HomePathError extends Error {
  /** `not-found` when the path (or a parent of it) does not exist; `refused` for every other reason. */
  readonly code: HomePathErrorCode;
  /** The path as the caller gave it, when the error is about that path. */
  readonly path: string | undefined;

  constructor(message: string, options: { code?: HomePathErrorCode; path?: string } = {}) {
    super(message);
    this.name = 'HomePathError';
    this.code = options.code ?? 'refused';
    this.path = options.path;
  }
}
