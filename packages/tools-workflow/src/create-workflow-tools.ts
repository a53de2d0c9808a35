import { type AnyWorkerAgentTool, defineWorkerTool, type JSONSchemaObject } from '@switchyard/core';
import { z } from 'zod';
import { formatWorkflow, formatWorkflowSummary } from './format-workflow';
import type { WorkflowService } from './services';
import { callService, checkAgentId, checkService } from './tool-helpers';

/** What `createWorkflowTools` needs from the turn. */
export interface WorkflowToolsContext {
  /** Where workflows live: `controlPlane.workflows` from `@switchyard/control-plane`. */
  workflowService: WorkflowService;
  /** The calling agent: every tool acts on this agent's workflows only. */
  agentId: string;
}

const resultSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'JSON Schema of the task result: an object with additionalProperties false and every property required; ' +
      'types string, number, integer, boolean, null; enums; arrays and nested objects of the same kind; ' +
      'anyOf [schema, {"type":"null"}] for a value that may be missing',
  );

const workflowSchema = z.object({
  name: z.string().describe('A short name for the workflow'),
  tasks: z
    .array(
      z.object({
        id: z.string().describe('Unique task id: letters, digits, _ and -'),
        prompt: z
          .string()
          .describe(
            'What the task sub-agent is asked. May include {{tasks.<id>.result}} of tasks listed in dependsOn',
          ),
        resultSchema,
        dependsOn: z.array(z.string()).optional().describe('Ids of tasks that must complete first'),
      }),
    )
    .min(1)
    .describe('The tasks; those without dependencies start at once, in parallel'),
});

// Module level, shared by show_workflow and cancel_workflow: one schema object, converted once.
const workflowIdSchema = z.object({ workflowId: z.string().describe('The workflow id') });
// list_workflows' too: a schema written inside the factory would be a new object, converted anew, every turn.
const noArgumentsSchema = z.object({});

/**
 * Creates the workflow tools of an ordinary text turn: `workflow`, `show_workflow`,
 * `list_workflows` and `cancel_workflow`, in that order, all scoped to `agentId`.
 *
 * Contract: throws at creation naming the field when `workflowService` lacks a method or `agentId`
 * is not a non-empty string. The service's refusals (an invalid spec, naming the task and schema
 * path) and unknown ids become `isError` results saying what to change.
 *
 * @example
 * const tools = [
 *   ...createWorkflowTools({ workflowService: controlPlane.workflows, agentId: 'ada' }),
 * ];
 */
export function createWorkflowTools(context: WorkflowToolsContext): AnyWorkerAgentTool[] {
  const service = checkService(context?.workflowService, 'workflowService', 'WorkflowService', [
    'startWorkflow',
    'showWorkflow',
    'listWorkflows',
    'cancelWorkflow',
  ]);
  const agentId = checkAgentId(context.agentId);

  const noWorkflow = (workflowId: string) => ({
    content: `You have no workflow with id ${workflowId}. Call list_workflows to see your workflows' ids.`,
    isError: true,
  });

  const workflow = defineWorkerTool({
    name: 'workflow',
    description:
      'Start a workflow: tasks that each run as a separate sub-agent turn and return a result matching ' +
      'their resultSchema. Tasks without dependsOn start at once and run in parallel; a task starts when every ' +
      'task it depends on has completed, and its prompt can quote their results with {{tasks.<id>.result}}. ' +
      'Returns the workflow id; follow it with show_workflow.',
    schema: workflowSchema,
    executionMode: 'sequential',
    // Started under the call's key: run again (its worker stopped before its output was recorded),
    // it answers with the workflow it started.
    idempotent: true,
    describeActivity: ({ name, tasks }) => `Starting workflow ${name} (${tasks.length} tasks)`,
    describeCompletedActivity: ({ name }, result) =>
      result.isError ? `Could not start workflow ${name}` : `Started workflow ${name}`,
    execute: ({ name, tasks }, { idempotencyKey }) =>
      callService(
        'start the workflow',
        () =>
          service.startWorkflow({
            agentId,
            idempotencyKey: `tool:${idempotencyKey}`,
            spec: {
              name,
              tasks: tasks.map((task) => ({
                id: task.id,
                prompt: task.prompt,
                resultSchema: task.resultSchema as JSONSchemaObject,
                ...(task.dependsOn === undefined ? {} : { dependsOn: task.dependsOn }),
              })),
            },
          }),
        (started) => ({ content: `Started:\n${formatWorkflow(started)}`, details: started }),
      ),
  });

  const showWorkflow = defineWorkerTool({
    name: 'show_workflow',
    description: "Show one of your workflows: each task's status, the results so far and any errors.",
    schema: workflowIdSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ workflowId }) => `Checking workflow ${workflowId}`,
    execute: ({ workflowId }) =>
      callService(
        'show the workflow',
        () => service.showWorkflow({ agentId, workflowId }),
        (found) =>
          found === null ? noWorkflow(workflowId) : { content: formatWorkflow(found), details: found },
      ),
  });

  const listWorkflows = defineWorkerTool({
    name: 'list_workflows',
    description: 'List your recent workflows with their ids and status.',
    schema: noArgumentsSchema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: () => 'Listing workflows',
    execute: () =>
      callService(
        'list the workflows',
        () => service.listWorkflows({ agentId }),
        (workflows) => {
          if (workflows.length === 0) return { content: 'You have no workflows.', details: [] };
          return {
            content: `${workflows.length} workflow${workflows.length === 1 ? '' : 's'}:\n${workflows.map((item) => `- ${formatWorkflowSummary(item)}`).join('\n')}`,
            details: workflows,
          };
        },
      ),
  });

  const cancelWorkflow = defineWorkerTool({
    name: 'cancel_workflow',
    description:
      'Cancel one of your running workflows: pending tasks never start, running ones are aborted, ' +
      'results already stored stay.',
    schema: workflowIdSchema,
    executionMode: 'sequential',
    isDestructive: true,
    describeActivity: ({ workflowId }) => `Cancelling workflow ${workflowId}`,
    execute: ({ workflowId }) =>
      callService(
        'cancel the workflow',
        () => service.cancelWorkflow({ agentId, workflowId }),
        (cancelled) => {
          if (cancelled === null) return noWorkflow(workflowId);
          const note =
            cancelled.status === 'cancelled'
              ? 'Cancelled'
              : `Already ended (${cancelled.status}); nothing cancelled`;
          return { content: `${note}:\n${formatWorkflow(cancelled)}`, details: cancelled };
        },
      ),
  });

  return [workflow, showWorkflow, listWorkflows, cancelWorkflow];
}
