import { z } from '@hono/zod-openapi';

/** `GET /healthz`: serving, draining, or lock-lost, and the turns running now. */
export const HealthSchema = z
  .strictObject({
    status: z.enum(['serving', 'draining', 'lock-lost']),
    runningTurns: z.number().int(),
    sandbox: z
      .strictObject({
        state: z.enum(['sandboxed', 'unsandboxed', 'off', 'no-commands']).openapi({
          description:
            "`sandboxed`: every agent's commands run in the sandbox; `unsandboxed`: some run unconfined (mode `auto` where bubblewrap cannot work now); `off`: mode `off`; `no-commands`: no run_command",
        }),
        summary: z.string().openapi({ description: 'What runs how, and why not sandboxed' }),
      })
      .optional()
      .openapi({ description: "Whether the agents' commands run in the sandbox (checked again every 30 s)" }),
    scriptedModel: z
      .strictObject({
        summary: z.string().openapi({ description: 'What that means, and how to use a real model' }),
      })
      .optional()
      .openapi({
        description:
          'Present while the daemon runs on the built-in scripted model (`switchyard serve --scripted-model`): canned answers, no model endpoint',
      }),
  })
  .openapi('Health');
