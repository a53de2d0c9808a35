import { SwitchyardError } from './switchyard-error';

/**
 * A model request failed: an HTTP error left after the SDK's retries, a connection error, a stream
 * cut before `response.completed`, or a `response.failed` / `error` event.
 *
 * Contract: the loop never throws it; it ends the turn with status `'failed'`, carried on the
 * `turn-end` event and in the result's `error`.
 */
export class ModelRequestError extends SwitchyardError {
  /** The HTTP status, when the server answered with one. */
  readonly status: number | undefined;

  constructor(options: { message: string; status?: number; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.markAs('ModelRequestError');
    this.status = options.status;
  }

  static override isInstance(value: unknown): value is ModelRequestError {
    return SwitchyardError.hasMark(value, 'ModelRequestError');
  }
}
