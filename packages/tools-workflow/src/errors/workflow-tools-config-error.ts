import { type ConfigErrorOptions, SwitchyardConfigError } from '@switchyard/core';

/**
 * The workflow, background job or task-turn tools were configured wrongly: a service missing a
 * method, an empty `agentId`, a task target of an unknown kind or without its result schema, a tool
 * that may not be part of a task turn.
 *
 * Contract: thrown by `createWorkflowTools`, `createBackgroundJobTools` and `createTaskTurnTools` when
 * the tools are created, never mid-turn. `field` names the offending option as a dotted path from the
 * context object, e.g. `task.resultSchema`; the message says what to change.
 */
export class WorkflowToolsConfigError extends SwitchyardConfigError {
  constructor(options: ConfigErrorOptions) {
    super('WorkflowToolsConfigError', 'workflow tools', options);
  }

  /** True for this error from any copy of the package. */
  static override isInstance(value: unknown): value is WorkflowToolsConfigError {
    return SwitchyardConfigError.hasMark(value, 'WorkflowToolsConfigError');
  }
}
