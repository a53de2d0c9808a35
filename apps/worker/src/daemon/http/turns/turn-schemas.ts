import { z } from '@hono/zod-openapi';
import { TURN_SOURCES, TURN_STATUSES } from '@switchyard/control-plane';
import { type AgentFields, UsageSchema } from '../shared-schemas';
import { isStorableText, STORABLE_TEXT_ERROR } from '../storable-text';

// Every status and source a turn can have: the control plane's lists, so the API never drifts from the records.
export { TURN_SOURCES, TURN_STATUSES } from '@switchyard/control-plane';

/** One turn, whichever process ran it. */
export const TurnSchema = z
  .strictObject({
    id: z.string().openapi({ example: 'turn_4d0c6a3e-0f3e-4a57-9d0e-2d6f3c1b8a10' }),
    agent: z.string(),
    source: z.enum(TURN_SOURCES),
    sourceId: z.string().optional(),
    origin: z
      .strictObject({
        workflow: z.strictObject({ id: z.string(), name: z.string() }).optional(),
        taskId: z.string().optional(),
        schedule: z.strictObject({ id: z.string(), name: z.string() }).optional(),
        scheduleRunId: z.string().optional(),
        jobId: z.string().optional(),
        parentTurnId: z.string().optional().openapi({
          description:
            'The turn whose tool call (`workflow`, `start_background_job`) started the task’s workflow or the job; absent when the API or the CLI started it.',
        }),
      })
      .optional()
      .openapi({
        description:
          'Where a task, schedule or job turn came from, by name: the workflow and task, the schedule (its own id: `sourceId` is the run’s) and run, the job, and the turn that started the workflow or job. In the list and on one turn; absent for API turns, in the live feed’s `turn` events, and for parts no longer recorded.',
      }),
    title: z.string().openapi({
      description:
        'The prompt’s first non-blank line, its white space runs as one space, at most 120 characters (cut with `…`)',
      example: 'Summarise the open issues in notes/todo.md',
    }),
    status: z.enum(TURN_STATUSES),
    output: z.string(),
    usage: UsageSchema,
    iterations: z.number().int(),
    createdAt: z.string(),
    endedAt: z.string().optional(),
    error: z.string().optional(),
    limitedBy: z.array(z.string()).optional().openapi({
      description:
        "The agent's limits (budgets) that delayed or ended the turn, in order: turnsAtOnce, tokensPerTurn, tokensPerDay",
    }),
  })
  .openapi('Turn');

/** One turn with its whole prompt (`GET /v1/turns/{id}`). */
export const TurnDetailSchema = z
  // A new object of the same fields, not `extend`: the document would give an `allOf` of two closed
  // objects, which no value satisfies.
  .strictObject({
    ...TurnSchema.shape,
    prompt: z.string().openapi({ description: 'The prompt the turn was started with, as recorded' }),
    workerId: z.string().optional().openapi({
      description: 'The worker process that runs or ran it, as recorded (absent if not recorded)',
    }),
    eventsRecorded: z.number().int().optional().openapi({
      description:
        'Events in its stored log (0 until it ends: follow `/v1/turns/{id}/events` for a turn under way); absent if not recorded',
    }),
    eventsDropped: z.number().int().optional().openapi({
      description:
        'Events left out of the middle of its stored log to keep it under the size limit (0: the whole log); absent if not recorded',
    }),
  })
  .openapi('TurnDetail');

/** A page of turns, newest first. */
export const TurnListSchema = z
  .strictObject({
    turns: z.array(TurnSchema),
    nextCursor: z
      .string()
      .optional()
      .openapi({ description: 'Pass as `cursor` for the next page; absent on the last.' }),
  })
  .openapi('TurnList');

/** The turns' request schemas, which check `agent` against the agents served (`agentFields`). */
export function turnRequestSchemas({ agent, limit, cursor }: AgentFields) {
  return {
    turnRequest: z
      .strictObject({
        prompt: z
          .string({ error: 'expected a non-empty string' })
          .refine((prompt) => prompt.trim() !== '', { error: 'expected a non-empty string' })
          .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
        agent: agent.optional(),
      })
      .openapi('TurnRequest'),
    turnsQuery: z.strictObject({
      agent: agent.optional(),
      status: z.enum(TURN_STATUSES).optional(),
      source: z.enum(TURN_SOURCES).optional(),
      text: z.string().min(1).max(200).optional().openapi({
        description:
          'Only turns whose prompt holds this text, case-insensitively, within its first 4,096 characters. A search reads at most 2,000 turns per page: a page may hold fewer than `limit` turns, even none, with a `nextCursor` to go on from.',
        example: 'flaky build',
      }),
      createdAfter: z.iso
        .datetime()
        .optional()
        .openapi({ description: 'Only turns started at or after this time (ISO 8601 UTC)' }),
      createdBefore: z.iso
        .datetime()
        .optional()
        .openapi({ description: 'Only turns started before this time (ISO 8601 UTC)' }),
      limit,
      cursor: cursor.optional(),
    }),
  };
}
