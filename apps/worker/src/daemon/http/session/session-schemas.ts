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
  })
  .openapi('Session');

/** The query of `GET /v1/session`: nothing (anything given is a 400). */
export const SessionQuerySchema = z.strictObject({});
