import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { TOOL_CALL_OUTCOMES } from '@switchyard/core';
import type { AgentFields } from '../shared-schemas';

// What the event streams (`/v1/turns/{id}/events` and `/v1/events`) send besides the resources'
// own shapes: sent inside the streams, not as response bodies, and registered in the document so
// clients are typed from them.

/**
 * The data of a `tool-call-end` event in the event streams (`/v1/turns/{id}/events`, and `event` of
 * a `turn-event` in `/v1/events`): core's event as it is sent. `outcome` is one closed set, the same
 * as `switchyard run --json` and the spans' `switchyard.tool.outcome`; a call failed exactly when it
 * is not `completed`. Open to fields added later.
 */
export const ToolCallEndEventSchema = z
  .looseObject({
    type: z.literal('tool-call-end'),
    callId: z.string().openapi({ description: 'The call id as the model endpoint sent it' }),
    itemIndex: z.number().int().optional().openapi({
      description:
        'Where the call’s item sits in the turn’s transcript: unique within the turn, also when the endpoint reused a call id in a later response (absent in logs recorded before it existed). tool-call-start and tool-call-progress carry it too.',
    }),
    name: z.string(),
    namespace: z.string().optional(),
    outcome: z.enum(TOOL_CALL_OUTCOMES).openapi({
      description:
        'How the call ended. `completed`: execute returned a result without isError (the only success). `tool-error`: the tool returned an error result, threw, or returned nothing usable. `invalid-arguments`, `denied`, `unknown-tool`, `skipped` (an earlier call of the response ended the turn), `duplicate-call-id` (another call of the response had the same call id): nothing ran. `in-doubt`: a resumed turn found the call started by its stopped worker with no output recorded, and did not run it again (its effect is unknown). `timeout`, `cancelled` (the turn was aborted). Turns recorded before this set existed are sent with their `completed`-with-isError and `error` outcomes read as `tool-error`.',
      example: 'tool-error',
    }),
    activity: z.string().openapi({ example: 'Read 120 lines of notes/todo.md' }),
    durationMs: z.number().openapi({ description: '0 for a call that never started' }),
    isError: z.boolean().openapi({ description: "Always `outcome !== 'completed'`" }),
    repairs: z.array(z.string()),
    refusal: z.string().optional().openapi({
      description:
        'With outcome `invalid-arguments`: why the arguments were refused, core’s ToolArgumentsError.reason (an argument-ladder step such as `invalid-json` or `truncated`, or `invalid-arguments` when the schema refused them). Absent for other outcomes and in logs recorded before it existed.',
      example: 'truncated',
    }),
    approval: z
      .object({ decision: z.enum(['allow', 'deny']), waitMs: z.number() })
      .optional()
      .openapi({
        description:
          'Present when the call was put to the approval check (`beforeToolCall`): its decision (`deny` also when the check failed) and how long the call waited for it, in milliseconds. Absent in logs recorded before it existed.',
      }),
    result: z
      .looseObject({ content: z.union([z.string(), z.array(z.unknown())]) })
      .openapi({ description: 'The result recorded as the call’s output, as the model saw it' }),
    resultCut: z.unknown().optional(),
    endsTurn: z.boolean(),
    replayed: z.literal(true).optional().openapi({
      description:
        'Present when the output came from the turn’s journal: a resumed turn reused what its stopped worker recorded, and nothing ran.',
    }),
    at: z.string().optional().openapi({
      description:
        'When the process running the turn took the event (ISO 8601, milliseconds). Every event of the turn’s stream carries it: a turn’s timeline is drawn from these. Absent in logs recorded before it existed.',
      example: '2026-12-05T01:02:03.456Z',
    }),
    inDoubt: z.literal(true).optional().openapi({
      description:
        'Present when the turn’s stopped worker had started the call and recorded no output: a read-only or idempotent tool ran again, any other ended `in-doubt` (or was put to an operator with `approvals.inDoubt: ask`).',
    }),
  })
  .openapi('ToolCallEndEvent');

/**
 * The data of the `overflow` event that ends an event stream whose reader fell too far behind
 * (`serve.maxEventStreamBytes`): what waited for it was dropped. A client reconnects and reloads what
 * it shows.
 */
export const StreamOverflowEventSchema = z
  .strictObject({
    reason: z.literal('reader-behind'),
    limitBytes: z.number().int().openapi({ description: 'The most bytes the stream holds for its reader' }),
    message: z.string(),
  })
  .openapi('StreamOverflowEvent');

/** The query of `GET /v1/events`, which checks `agent` against the agents served (`agentFields`). */
export function eventsQuerySchema({ agent }: AgentFields) {
  return z.strictObject({ agent: agent.optional() });
}

/** Puts the events sent inside the streams into the document's components. */
export function registerStreamEventSchemas(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  app.openAPIRegistry.register('ToolCallEndEvent', ToolCallEndEventSchema);
  app.openAPIRegistry.register('StreamOverflowEvent', StreamOverflowEventSchema);
}
