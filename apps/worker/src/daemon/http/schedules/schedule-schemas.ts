import { z } from '@hono/zod-openapi';
import type { AgentFields } from '../shared-schemas';

/** Every status of a schedule's run. */
export const SCHEDULE_RUN_STATUSES = ['enqueued', 'running', 'completed', 'failed'] as const;

/** One fire of a schedule, from the control plane's run ledger. */
export const ScheduleRunSchema = z
  .strictObject({
    firedAt: z.string().openapi({ description: 'When the scheduler enqueued it (ISO 8601, UTC)' }),
    slot: z
      .string()
      .openapi({ description: 'The slot it fired for (ISO 8601, UTC): earlier than firedAt when missed' }),
    status: z.enum(SCHEDULE_RUN_STATUSES),
    turnId: z
      .string()
      .optional()
      .openapi({ description: 'The newest turn that ran it, when one was recorded' }),
    error: z.string().optional().openapi({ description: 'Why its last attempt failed' }),
  })
  .openapi('ScheduleRun');

/** One schedule of an agent served, with its next fire times and recent runs. */
export const ScheduleSchema = z
  .strictObject({
    id: z.string(),
    agent: z.string(),
    name: z.string(),
    status: z.enum(['active', 'cancelled', 'finished']),
    kind: z.enum(['cron', 'once']),
    cron: z.string().optional().openapi({ description: 'The 5-field cron expression (kind cron)' }),
    runAt: z
      .string()
      .optional()
      .openapi({ description: 'The one-shot time, local ISO 8601 with offset (kind once)' }),
    timeZone: z.string().openapi({ description: 'The IANA zone the cron and the times are read in' }),
    nextFireTimes: z
      .array(z.string())
      .openapi({ description: 'The next (up to) three fire times, ISO 8601 with the zone’s offset' }),
    prompt: z.string(),
    createdAt: z.string(),
    runs: z.array(ScheduleRunSchema).openapi({ description: 'Its recent runs, newest first (at most 10)' }),
  })
  .openapi('Schedule');

/** The schedules of the agents served. */
export const ScheduleListSchema = z.strictObject({ items: z.array(ScheduleSchema) }).openapi('ScheduleList');

/** The query of `GET /v1/schedules`, which checks `agent` against the agents served (`agentFields`). */
export function schedulesQuerySchema({ agent }: AgentFields) {
  return z.strictObject({
    agent: agent.optional(),
    all: z
      .enum(['true', 'false'], { error: "expected 'true' or 'false'" })
      .optional()
      .openapi({ description: '`true` adds cancelled and finished schedules (default: active ones)' }),
  });
}
