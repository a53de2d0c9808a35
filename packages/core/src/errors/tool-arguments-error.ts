import { SwitchyardError } from './switchyard-error';

const marker = Symbol.for('switchyard.error.ToolArgumentsError');

/**
 * The model's arguments for a tool call could not be parsed or did not validate.
 *
 * Contract: never thrown out of the loop; its `message` becomes the call's `function_call_output`
 * (with `isError`) so the model can correct itself.
 */
export class ToolArgumentsError extends SwitchyardError {
  /** The tool the arguments were meant for. */
  readonly toolName: string;

  constructor(options: { toolName: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'ToolArgumentsError';
    Object.defineProperty(this, marker, { value: true });
    this.toolName = options.toolName;
  }

  static override isInstance(value: unknown): value is ToolArgumentsError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
