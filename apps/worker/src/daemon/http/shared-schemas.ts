import { z } from '@hono/zod-openapi';
import { CURSOR_PATTERN } from './page-cursor';

// The HTTP API's shapes: one Zod schema each validates requests, types the handlers, and becomes the
// OpenAPI 3.1 document (`/v1/openapi.json`). Response schemas name every field the daemon sends and
// are closed (`additionalProperties: false`), so a response with an undocumented field fails the
// document's validation in the tests. The shapes of one resource live beside its routes
// (`turns/turn-schemas.ts`, ...); this file holds those several resources share.

/** Every error: `{ error: { code, message, fields? } }`. */
export const ErrorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string().openapi({ example: 'invalid_body' }),
      message: z.string(),
      fields: z.array(z.string()).optional(),
    }),
  })
  .openapi('Error');

/** Tokens a turn used, summed over its model requests. */
export const UsageSchema = z
  .strictObject({
    inputTokens: z.number().int(),
    cachedInputTokens: z.number().int(),
    outputTokens: z.number().int(),
    reasoningTokens: z.number().int(),
    totalTokens: z.number().int(),
  })
  .openapi('Usage');

/**
 * Plain text fields of a record, each `z.string()`, in the order named: ids and times. A record's
 * optional ones (`optionalTextFields`) are the fields its view copies with `definedFields`.
 */
export function textFields<const K extends string>(keys: readonly K[]): { [P in K]: z.ZodString } {
  return Object.fromEntries(keys.map((key) => [key, z.string()])) as { [P in K]: z.ZodString };
}

/** Optional plain text fields of a record, each `z.string().optional()`, in the order named. */
export function optionalTextFields<const K extends string>(
  keys: readonly K[],
): { [P in K]: z.ZodOptional<z.ZodString> } {
  return Object.fromEntries(keys.map((key) => [key, z.string().optional()])) as {
    [P in K]: z.ZodOptional<z.ZodString>;
  };
}

/** A path `id` of a turn, approval or workflow (anything else is a 404). */
export const IdParamSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,80}$/)
    .openapi({ param: { name: 'id', in: 'path' } }),
});

/**
 * The `Idempotency-Key` header of a `POST` that creates something. Described here; checked by
 * `readIdempotencyKey` in the route (a bad key is a 400 naming the header), so any string passes this.
 */
export const IdempotencyKeyHeaderSchema = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .openapi({
      param: { name: 'idempotency-key', in: 'header' },
      description:
        'draft-ietf-httpapi-idempotency-key-header: 1 to 255 printable ASCII characters, as a quoted string ("...") or unquoted without spaces or commas. The first request with a key creates, and its answer is kept for 24 hours by every process on the database: the same key with the same body gets that answer again (even from another process, or after a restart); while the first is still being answered, 409 with Retry-After; with another body, 422. Scoped by agent and route.',
      example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    }),
});

/** The query and body fields whose checks depend on the agents a daemon serves (`agentFields`). */
export type AgentFields = ReturnType<typeof agentFields>;

/**
 * The fields several resources' queries and bodies share: `agent` (one of the agents served: their
 * names are checked at run time, a pattern in the document), and a list's `limit` and `cursor`.
 * Made once per API: every resource's schemas use the same field schemas.
 */
export function agentFields(agents: readonly string[]) {
  const served = agents.map((name) => `'${name}'`).join(', ');
  // A pattern in the document, whatever agents a daemon serves: clients are typed once for all.
  const agent = z
    .string({ error: 'expected an agent id' })
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, {
      error: "expected an agent id: letters, digits, '_', '.' and '-' (1 to 64)",
    })
    .refine((name) => agents.includes(name), { error: `this daemon serves ${served}` })
    .openapi({ description: 'An agent this daemon serves (default: its first)' });
  const limit = z.coerce
    .number({ error: 'expected a whole number from 1 to 100' })
    .int({ error: 'expected a whole number from 1 to 100' })
    .min(1, { error: 'expected a whole number from 1 to 100' })
    .max(100, { error: 'expected a whole number from 1 to 100' })
    .optional();
  // base64url only: anything else is not a cursor this API gave out (page-cursor.ts checks the rest).
  const cursor = z.string().regex(CURSOR_PATTERN, { error: 'not a cursor this API gave out' });
  return { agent, limit, cursor };
}
