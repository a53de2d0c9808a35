import { z } from '@hono/zod-openapi';
import type { AgentFields } from '../shared-schemas';
import { isStorableJson, isStorableText, STORABLE_TEXT_ERROR } from '../storable-text';

/** Every status a workflow can have. */
export const WORKFLOW_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
/** Every status a workflow's task can have. */
export const TASK_STATUSES = ['pending', 'queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** The fields a workflow and its summary in a list share. */
const workflowFields = {
  id: z.string(),
  agent: z.string(),
  name: z.string(),
  status: z.enum(WORKFLOW_STATUSES),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
};

/** One workflow: its tasks, their statuses and stored results. */
export const WorkflowSchema = z
  .strictObject({
    ...workflowFields,
    tasks: z.array(
      z.strictObject({
        id: z.string(),
        status: z.enum(TASK_STATUSES),
        dependsOn: z.array(z.string()),
        result: z.unknown().openapi({ description: 'The stored result, or null' }),
        error: z.string().nullable(),
        attempts: z.number().int(),
      }),
    ),
  })
  .openapi('Workflow');

/** A workflow as a list shows it: its tasks counted by status. */
export const WorkflowSummarySchema = z
  .strictObject({
    ...workflowFields,
    taskCounts: z.record(z.string(), z.number().int()),
  })
  .openapi('WorkflowSummary');

/** Recent workflows, newest first. */
export const WorkflowListSchema = z
  .strictObject({ workflows: z.array(WorkflowSummarySchema) })
  .openapi('WorkflowList');

/** The workflows' request schemas, which check `agent` against the agents served (`agentFields`). */
export function workflowRequestSchemas({ agent }: AgentFields) {
  return {
    workflowsQuery: z.strictObject({ agent: agent.optional() }),
    workflowRequest: z
      .strictObject({
        agent: agent.optional(),
        name: z
          .string({ error: 'expected a short name' })
          .min(1)
          .max(200)
          .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
        tasks: z
          .array(
            z.strictObject({
              id: z
                .string({ error: 'expected a task id: letters, digits, _ and -' })
                .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
              prompt: z
                .string({ error: 'expected the prompt of the task sub-agent' })
                .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
              resultSchema: z
                .record(z.string(), z.unknown(), { error: 'expected the JSON Schema of the task result' })
                .refine(isStorableJson, { error: `its strings and keys ${STORABLE_TEXT_ERROR}` })
                .openapi({ description: 'JSON Schema of the task result (closed shapes only)' }),
              dependsOn: z
                .array(z.string().refine(isStorableText, { error: STORABLE_TEXT_ERROR }))
                .optional(),
            }),
          )
          .min(1, { error: 'expected at least one task' }),
      })
      .openapi('WorkflowRequest'),
  };
}
