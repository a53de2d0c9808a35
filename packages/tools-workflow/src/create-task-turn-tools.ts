import { type AnyWorkerAgentTool, defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { WorkflowToolsConfigError } from './errors/workflow-tools-config-error';
import type { SubmitResultOutcome, TaskResultService, WorkTarget } from './services';
import { checkService, failure } from './tool-helpers';

/** The task or job a task turn works for, with the result schema stored for it. */
export type TaskTurnTask = WorkTarget & {
  /**
   * The stored result schema: `submit_result`'s `jsonSchema`, sent unchanged with `strict: true`
   * (the control plane stores it in strict mode's canonical form). Null for a background job without
   * a schema: its result is the turn's final text, and there is no `submit_result`.
   */
  resultSchema: JSONSchemaObject | null;
};

/** What `createTaskTurnTools` needs from the task turn. */
export interface TaskTurnToolsContext {
  /** The task or job this turn works for. */
  task: TaskTurnTask;
  /** Where `submit_result` goes: `controlPlane.workTurns` from `@switchyard/control-plane`. */
  taskResultService: TaskResultService;
  /** The web tools (`createWebTools(...)`), passed by the worker: this package imports no other category. */
  webTools?: readonly AnyWorkerAgentTool[];
  /**
   * The agent's read-only Brain tools (`createBrainTools({ brain, agentId, mode: 'read-only' })` of
   * `@switchyard/tools-brain`: `recall` and `get_page`), passed by the worker. Each must be read-only.
   */
  brainTools?: readonly AnyWorkerAgentTool[];
}

/** Tools a task turn must never have: they create workflows or jobs. */
const CREATION_TOOLS = new Set(['workflow', 'start_background_job']);

function formatOutcome(outcome: SubmitResultOutcome) {
  switch (outcome.status) {
    case 'stored':
      return { content: 'Result stored. Your task is done.', endsTurn: true, details: outcome };
    case 'already-stored':
      return {
        content: 'A result for this task was already stored; nothing new was stored. Your task is done.',
        endsTurn: true,
        details: outcome,
      };
    case 'rejected':
      return {
        content: `Result rejected, nothing stored. Fix each problem and call submit_result again:\n${outcome.problems.map((problem) => `- ${problem}`).join('\n')}`,
        isError: true,
        details: outcome,
      };
    case 'closed':
      return {
        content: `Result not stored: ${outcome.reason}. Stop working on this task.`,
        isError: true,
        endsTurn: true,
        details: outcome,
      };
  }
}

/**
 * Creates the fixed tool list of a workflow task's (or background job's) sub-agent turn: the web
 * tools and the read-only Brain tools when given, and `submit_result`,
 * whose `jsonSchema` is the task's stored result schema, sent with `strict: true`. It never includes
 * tools that create workflows or background jobs.
 *
 * Contract: throws at creation naming the field when `task` or `taskResultService` is malformed,
 * when `webTools` or `brainTools` holds a workflow or job creation tool or a name the list already has,
 * when `brainTools` holds a tool that is not read-only, or (a
 * `ToolDefinitionError`) when the result schema is not already strict. A submission the control
 * plane rejects becomes an `isError` result listing each problem, and the turn goes on; an accepted
 * one (or a repeat of an accepted one) ends the turn.
 *
 * @example
 * const tools = createTaskTurnTools({
 *   task: { kind: 'workflow-task', workflowId, taskId, resultSchema },
 *   taskResultService: controlPlane.workTurns,
 *   webTools: createWebTools(webContext),
 *   brainTools: createBrainTools({ brain: controlPlane.brain, agentId, mode: 'read-only' }),
 * });
 */
export function createTaskTurnTools(context: TaskTurnToolsContext): AnyWorkerAgentTool[] {
  const task = context?.task;
  if (task?.kind !== 'workflow-task' && task?.kind !== 'background-job') {
    throw new WorkflowToolsConfigError({
      field: 'task',
      message: "must be a 'workflow-task' or 'background-job' target",
    });
  }
  const service = checkService(context.taskResultService, 'taskResultService', 'TaskResultService', [
    'submitResult',
  ]);
  const tools: AnyWorkerAgentTool[] = [];
  const names = new Set(['submit_result']);
  const take = (field: 'webTools' | 'brainTools', given: readonly AnyWorkerAgentTool[] | undefined) => {
    for (const tool of given ?? []) {
      if (CREATION_TOOLS.has(tool.name) || names.has(tool.name)) {
        throw new WorkflowToolsConfigError({
          field,
          message: `'${tool.name}' cannot be part of a task turn`,
        });
      }
      // A task turn reads the Brain; only its own text turns write it.
      if (field === 'brainTools' && !tool.isReadOnly) {
        throw new WorkflowToolsConfigError({
          field: 'brainTools',
          message: `'${tool.name}' is not read-only; a task turn gets only read-only Brain tools`,
        });
      }
      names.add(tool.name);
      tools.push(tool);
    }
  };
  take('webTools', context.webTools);
  take('brainTools', context.brainTools);
  const { resultSchema, ...target } = task;
  if (resultSchema === null) {
    if (task.kind === 'workflow-task')
      throw new WorkflowToolsConfigError({
        field: 'task.resultSchema',
        message: 'a workflow task needs its result schema',
      });
    return tools;
  }
  tools.push(
    defineWorkerTool({
      name: 'submit_result',
      description:
        'Submit the result of your task. Its arguments are the result itself, matching the result schema. ' +
        'It is validated before it is stored: if it is rejected, fix the listed problems and submit again. ' +
        'Once it is stored your task is done.',
      jsonSchema: resultSchema,
      strict: true,
      executionMode: 'sequential',
      // The unit's result is stored once: run again, it answers `already stored`.
      idempotent: true,
      describeActivity: () => 'Submitting the result',
      describeCompletedActivity: (_params, result) =>
        result.isError ? 'Result not stored' : 'Submitted the result',
      execute: async (params) => {
        try {
          return formatOutcome(await service.submitResult({ target: target as WorkTarget, result: params }));
        } catch (error) {
          return failure('submit the result', error);
        }
      },
    }),
  );
  return tools;
}
