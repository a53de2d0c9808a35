import { type AnyWorkerAgentTool, defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { z } from 'zod';
import type { BrainHit, BrainService, SubmitResultOutcome, TaskResultService, WorkTarget } from './services';
import { failure } from './tool-helpers';

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
  /** The agent's Brain: adds read-only `recall` and `get_page`. */
  brain?: BrainService;
}

/** Tools a task turn must never have: they create workflows or jobs. */
const CREATION_TOOLS = new Set(['workflow', 'start_background_job']);
const OWN_TOOLS = new Set(['submit_result', 'recall', 'get_page']);

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
 * tools when given, read-only `recall` and `get_page` when a Brain is given, and `submit_result`,
 * whose `jsonSchema` is the task's stored result schema, sent with `strict: true`. It never includes
 * tools that create workflows or background jobs.
 *
 * Contract: throws at creation naming the field when `task` or `taskResultService` is malformed,
 * when `webTools` holds a workflow or job creation tool or a name this list uses, or (a
 * `ToolDefinitionError`) when the result schema is not already strict. A submission the control
 * plane rejects becomes an `isError` result listing each problem, and the turn goes on; an accepted
 * one (or a repeat of an accepted one) ends the turn.
 *
 * @example
 * const tools = createTaskTurnTools({
 *   task: { kind: 'workflow-task', workflowId, taskId, resultSchema },
 *   taskResultService: controlPlane.workTurns,
 *   webTools: createWebTools(webContext),
 * });
 */
export function createTaskTurnTools(context: TaskTurnToolsContext): AnyWorkerAgentTool[] {
  const task = context?.task;
  if (task?.kind !== 'workflow-task' && task?.kind !== 'background-job') {
    throw new TypeError("task: must be a 'workflow-task' or 'background-job' target");
  }
  const service = context.taskResultService;
  if (typeof service?.submitResult !== 'function') {
    throw new TypeError('taskResultService: must implement TaskResultService (missing submitResult)');
  }
  const tools: AnyWorkerAgentTool[] = [];
  for (const tool of context.webTools ?? []) {
    if (CREATION_TOOLS.has(tool.name) || OWN_TOOLS.has(tool.name)) {
      throw new TypeError(`webTools: '${tool.name}' cannot be part of a task turn`);
    }
    tools.push(tool);
  }
  const { brain } = context;
  if (brain !== undefined) {
    if (typeof brain.recall !== 'function' || typeof brain.getPage !== 'function') {
      throw new TypeError('brain: must implement BrainService (recall and getPage)');
    }
    tools.push(
      defineWorkerTool({
        name: 'recall',
        description: "Search the agent's Brain (its long-term notes) for pages about a query. Read-only.",
        schema: z.object({
          query: z.string().describe('What to look for'),
          limit: z.number().int().min(1).max(20).optional().describe('Most pages to return; default 5'),
        }),
        executionMode: 'parallel',
        isReadOnly: true,
        describeActivity: ({ query }) => `Recalling ${query}`,
        execute: async ({ query, limit }) => {
          let hits: BrainHit[];
          try {
            hits = await brain.recall({ query, limit: limit ?? 5 });
          } catch (error) {
            return failure('search the Brain', error);
          }
          if (hits.length === 0) return { content: `Nothing found for "${query}".`, details: [] };
          return {
            content: hits.map((hit) => `- ${hit.title} (page ${hit.pageId}): ${hit.snippet}`).join('\n'),
            details: hits,
          };
        },
      }),
      defineWorkerTool({
        name: 'get_page',
        description: 'Read one Brain page by its id (from recall). Read-only.',
        schema: z.object({ pageId: z.string().describe('The page id') }),
        executionMode: 'parallel',
        isReadOnly: true,
        describeActivity: ({ pageId }) => `Reading page ${pageId}`,
        execute: async ({ pageId }) => {
          try {
            const page = await brain.getPage({ pageId });
            if (page === null) return { content: `There is no page ${pageId}.`, isError: true };
            return { content: `# ${page.title}\n\n${page.content}`, details: { pageId, title: page.title } };
          } catch (error) {
            return failure('read the page', error);
          }
        },
      }),
    );
  }
  const { resultSchema, ...target } = task;
  if (resultSchema === null) {
    if (task.kind === 'workflow-task')
      throw new TypeError('task.resultSchema: a workflow task needs its result schema');
    return tools;
  }
  tools.push(
    defineWorkerTool({
      name: 'submit_result',
      description:
        'Submit the result of your task. Its arguments are the result itself, matching the result schema. ' +
        'It is validated before it is stored: if it is rejected, fix the listed problems and submit again. ' +
        'Once it is stored your task is done.',
      schema: z.looseObject({}),
      jsonSchema: resultSchema,
      strict: true,
      executionMode: 'sequential',
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
