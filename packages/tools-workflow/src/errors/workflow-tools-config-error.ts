import { SwitchyardError } from '@switchyard/core';

const marker = Symbol.for('switchyard.error.WorkflowToolsConfigError');

/**
 * The workflow, background job or task-turn tools were configured wrongly: a service missing a
 * method, an empty `agentId`, a task target of an unknown kind or without its result schema, a tool
 * that may not be part of a task turn.
 *
 * Contract: thrown by `createWorkflowTools`, `createBackgroundJobTools` and `createTaskTurnTools` when
 * the tools are created, never mid-turn. `field` names the offending option as a dotted path from the
 * context object, e.g. `task.resultSchema`; the message says what to change.
 */
export class WorkflowToolsConfigError extends SwitchyardError {
  /** The option at fault, as a dotted path from the context object, e.g. `task.resultSchema`. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(`Invalid workflow tools configuration: ${options.field}: ${options.message}`, {
      cause: options.cause,
    });
    this.name = 'WorkflowToolsConfigError';
    Object.defineProperty(this, marker, { value: true });
    this.field = options.field;
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is WorkflowToolsConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
