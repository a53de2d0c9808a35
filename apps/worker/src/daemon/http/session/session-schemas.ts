import { z } from '@hono/zod-openapi';

/** `GET /v1/session`: who the caller is to this daemon, what it serves. */
export const SessionSchema = z
  .strictObject({
    access: z.enum(['full', 'read-only']).openapi({
      description:
        '`read-only` when the request used the read-only token (it may only GET); `full` with the bearer token, or when no token is configured',
    }),
    agents: z.array(z.string()).openapi({ description: 'The agents this daemon serves' }),
    defaultAgent: z.string().openapi({ description: 'The agent of a turn or workflow started without one' }),
    version: z.string().openapi({ description: 'The worker’s version' }),
    continueAnsweredWithinMs: z.number().int().openapi({
      description:
        'How soon, in ms, a turn still `waiting-approval` after its approvals were answered continues: one let go at shutdown (or held by a process that stopped) is claimed by the next heartbeat of a serving daemon (`serve.heartbeatMs`), one held by another live process sooner (it reads its answers every second)',
      example: 10_000,
    }),
  })
  .openapi('Session');

/** The query of `GET /v1/session`: nothing (anything given is a 400). */
export const SessionQuerySchema = z.strictObject({});
