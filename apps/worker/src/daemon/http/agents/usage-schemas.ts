import { z } from '@hono/zod-openapi';

/** Spend against one limit: what was used in its window, and the limit. */
const SpendSchema = z.strictObject({
  used: z.number().int(),
  limit: z.number().int(),
});

/** `GET /v1/agents/{agent}/usage`: what an agent spent and runs now against each of its budgets. */
export const AgentUsageSchema = z
  .strictObject({
    agent: z.string(),
    now: z.string().openapi({ description: "The database's time of the reading (ISO 8601)" }),
    tokensLastDay: SpendSchema.openapi({
      description:
        'Tokens its turns spent in the last 24 hours, across every process on the database (budgets.tokensPerDay)',
    }),
    tokensPerTurn: z
      .number()
      .int()
      .openapi({ description: 'Tokens one turn may spend (budgets.tokensPerTurn)' }),
    turnsAtOnce: SpendSchema.openapi({
      description: 'Its turns running now with a slot, across the fleet (budgets.turnsAtOnce)',
    }),
    turnsWaiting: z.number().int().openapi({ description: 'Its running turns still waiting for a slot' }),
    startedLastHour: z
      .strictObject({
        schedules: SpendSchema,
        scheduleFires: SpendSchema,
        workflows: SpendSchema,
        backgroundJobs: SpendSchema,
      })
      .openapi({
        description:
          'What it started in the last hour against schedulesPerHour, scheduleFiresPerHour, workflowsPerHour and backgroundJobsPerHour',
      }),
  })
  .openapi('AgentUsage');

/** The path of `GET /v1/agents/{agent}/usage`: an agent id (one the daemon serves: checked at run time). */
export const AgentParamSchema = z.object({
  agent: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .openapi({ param: { name: 'agent', in: 'path' } }),
});
