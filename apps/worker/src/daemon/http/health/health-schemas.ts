import { z } from '@hono/zod-openapi';

/** `GET /healthz`: serving, draining, or lock-lost, and the turns running now. */
export const HealthSchema = z
  .strictObject({ status: z.enum(['serving', 'draining', 'lock-lost']), runningTurns: z.number().int() })
  .openapi('Health');
