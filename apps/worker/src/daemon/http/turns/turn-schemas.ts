import { z } from '@hono/zod-openapi';
import { type AgentFields, UsageSchema } from '../shared-schemas';
import { isStorableText, STORABLE_TEXT_ERROR } from '../storable-text';

/** Every status a turn can have. */
export const TURN_STATUSES = [
  'running',
  'waiting-approval',
  'completed',
  'incomplete',
  'ended-by-tool',
  'aborted',
  'max-iterations',
  'budget-exceeded',
  'failed',
  'interrupted',
] as const;
/** What started a turn. */
export const TURN_SOURCES = ['api', 'schedule', 'job', 'task'] as const;

/** One turn, whichever process ran it. */
export const TurnSchema = z
  .strictObject({
    id: z.string().openapi({ example: 'turn_4d0c6a3e-0f3e-4a57-9d0e-2d6f3c1b8a10' }),
    agent: z.string(),
    source: z.enum(TURN_SOURCES),
    sourceId: z.string().optional(),
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
      limit,
      cursor: cursor.optional(),
    }),
  };
}
