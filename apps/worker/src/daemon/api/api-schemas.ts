import { z } from '@hono/zod-openapi';
import { TOOL_CALL_OUTCOMES } from '@switchyard/core';
import { CURSOR_PATTERN } from './page-cursor';
import { isStorableJson, isStorableText, STORABLE_TEXT_ERROR } from './storable-text';

// The HTTP API's shapes: one Zod schema each validates requests, types the handlers, and becomes the
// OpenAPI 3.1 document (`/v1/openapi.json`). Response schemas name every field the daemon sends and
// are closed (`additionalProperties: false`), so a response with an undocumented field fails the
// document's validation in the tests.

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
        'How the call ended. `completed`: execute returned a result without isError (the only success). `tool-error`: the tool returned an error result, threw, or returned nothing usable. `invalid-arguments`, `denied`, `unknown-tool`, `skipped` (an earlier call of the response ended the turn), `duplicate-call-id` (another call of the response had the same call id): nothing ran. `timeout`, `cancelled` (the turn was aborted). Turns recorded before this set existed are sent with their `completed`-with-isError and `error` outcomes read as `tool-error`.',
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

export const TURN_STATUSES = [
  'running',
  'waiting-approval',
  'completed',
  'incomplete',
  'ended-by-tool',
  'aborted',
  'max-iterations',
  'failed',
  'interrupted',
] as const;
export const TURN_SOURCES = ['api', 'schedule', 'job', 'task'] as const;

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
  })
  .openapi('Turn');

export const TurnListSchema = z
  .strictObject({
    turns: z.array(TurnSchema),
    nextCursor: z
      .string()
      .optional()
      .openapi({ description: 'Pass as `cursor` for the next page; absent on the last.' }),
  })
  .openapi('TurnList');

export const APPROVAL_STATUSES = ['pending', 'allowed', 'denied', 'expired', 'cancelled'] as const;

export const ApprovalSchema = z
  .strictObject({
    id: z.string().openapi({ example: 'approval_9f1c2b7e-3d4a-4c5b-8e6f-7a8b9c0d1e2f' }),
    turnId: z.string(),
    callId: z.string(),
    agent: z.string(),
    source: z.enum(TURN_SOURCES),
    callIndex: z.number().int().optional().openapi({
      description:
        'Where the held call’s item sits in its turn’s transcript: the approval’s key within the turn (absent on approvals recorded before it existed)',
    }),
    toolKey: z.string().openapi({ example: 'write_file' }),
    activity: z.string().openapi({
      example: 'Writing notes/plan.md',
      description: 'A short label: read the arguments for what runs',
    }),
    arguments: z.unknown().optional().openapi({
      description:
        'The arguments as validated and stored, whole: exactly what runs if allowed. Left out of lists and events when larger than 64 KiB (see argumentsPreview; GET /v1/approvals/{id}/arguments has them whole).',
    }),
    argumentsBytes: z.number().int().openapi({ description: 'UTF-8 bytes of the arguments as JSON text' }),
    argumentsPreview: z
      .strictObject({
        head: z.string().openapi({ description: 'The first 4 KiB of the arguments’ JSON text' }),
        tail: z.string().openapi({ description: 'The last 4 KiB of the arguments’ JSON text' }),
      })
      .optional()
      .openapi({ description: 'For arguments larger than 64 KiB, when `arguments` is left out' }),
    approvers: z.array(z.string()),
    status: z.enum(APPROVAL_STATUSES),
    reason: z.string().optional(),
    answeredBy: z.string().optional(),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: z.string().optional(),
    consumedAt: z.string().optional(),
  })
  .openapi('Approval');

export const ApprovalArgumentsSchema = z
  .strictObject({
    id: z.string(),
    argumentsBytes: z.number().int(),
    arguments: z.unknown().openapi({ description: 'The held call’s arguments, whole, as stored' }),
  })
  .openapi('ApprovalArguments');

export const ApprovalListSchema = z
  .strictObject({ approvals: z.array(ApprovalSchema), nextCursor: z.string().optional() })
  .openapi('ApprovalList');

export const AnswerSchema = z
  .strictObject({
    decision: z.enum(['allow', 'deny'], { error: "expected 'allow' or 'deny'" }),
    reason: z.string().max(4000).refine(isStorableText, { error: STORABLE_TEXT_ERROR }).optional(),
  })
  .openapi('ApprovalAnswer');

export const WORKFLOW_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export const TASK_STATUSES = ['pending', 'queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** The fields a workflow and its summary in a list share. */
const workflowFields = {
  id: z.string(),
  agent: z.string(),
  name: z.string(),
  status: z.enum(WORKFLOW_STATUSES),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
};

export const WorkflowSchema = z
  .strictObject({
    ...workflowFields,
    tasks: z.array(
      z.strictObject({
        id: z.string(),
        status: z.enum(TASK_STATUSES),
        dependsOn: z.array(z.string()),
        result: z.unknown().openapi({ description: 'The stored result, or null' }),
        error: z.string().nullable(),
        attempts: z.number().int(),
      }),
    ),
  })
  .openapi('Workflow');

export const WorkflowSummarySchema = z
  .strictObject({
    ...workflowFields,
    taskCounts: z.record(z.string(), z.number().int()),
  })
  .openapi('WorkflowSummary');

export const WorkflowListSchema = z
  .strictObject({ workflows: z.array(WorkflowSummarySchema) })
  .openapi('WorkflowList');

export const HealthSchema = z
  .strictObject({ status: z.enum(['serving', 'draining', 'lock-lost']), runningTurns: z.number().int() })
  .openapi('Health');

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

/** The schemas that depend on the agents a daemon serves (their names are an enum in the document). */
export function agentSchemas(agents: readonly string[]) {
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
    approvalsQuery: z.strictObject({
      agent: agent.optional(),
      status: z.enum(APPROVAL_STATUSES).optional(),
      turn: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,80}$/)
        .optional(),
      limit,
      cursor: cursor.optional(),
    }),
    workflowsQuery: z.strictObject({ agent: agent.optional() }),
    eventsQuery: z.strictObject({ agent: agent.optional() }),
    sessionQuery: z.strictObject({}),
    schedulesQuery: z.strictObject({
      agent: agent.optional(),
      all: z
        .enum(['true', 'false'], { error: "expected 'true' or 'false'" })
        .optional()
        .openapi({ description: '`true` adds cancelled and finished schedules (default: active ones)' }),
    }),
    toolsQuery: z.strictObject({ agent: agent.optional() }),
    workflowRequest: z
      .strictObject({
        agent: agent.optional(),
        name: z
          .string({ error: 'expected a short name' })
          .min(1)
          .max(200)
          .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
        tasks: z
          .array(
            z.strictObject({
              id: z
                .string({ error: 'expected a task id: letters, digits, _ and -' })
                .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
              prompt: z
                .string({ error: 'expected the prompt of the task sub-agent' })
                .refine(isStorableText, { error: STORABLE_TEXT_ERROR }),
              resultSchema: z
                .record(z.string(), z.unknown(), { error: 'expected the JSON Schema of the task result' })
                .refine(isStorableJson, { error: `its strings and keys ${STORABLE_TEXT_ERROR}` })
                .openapi({ description: 'JSON Schema of the task result (closed shapes only)' }),
              dependsOn: z
                .array(z.string().refine(isStorableText, { error: STORABLE_TEXT_ERROR }))
                .optional(),
            }),
          )
          .min(1, { error: 'expected at least one task' }),
      })
      .openapi('WorkflowRequest'),
  };
}

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

export const ScheduleListSchema = z.strictObject({ items: z.array(ScheduleSchema) }).openapi('ScheduleList');

/** One tool of an agent's manifest, as `switchyard tools --json` prints it. */
export const ToolManifestRowSchema = z
  .strictObject({
    category: z.string().openapi({ example: 'computer' }),
    key: z
      .string()
      .openapi({ description: 'Its dispatch key: name, or namespace.name', example: 'read_file' }),
    strict: z.boolean().openapi({ description: 'Sent with strict: true' }),
    fallbackReason: z.string().optional().openapi({ description: 'Why it is sent non-strict' }),
    movedKeywords: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Constraints moved into descriptions for strict mode (still enforced)' }),
    deferred: z.boolean().openapi({ description: 'Kept behind Tool Search' }),
    readOnly: z.boolean(),
    destructive: z.boolean(),
    bytes: z.number().int().openapi({ description: 'UTF-8 bytes of its schema' }),
  })
  .openapi('ToolManifestRow');

export const ToolManifestSchema = z
  .strictObject({
    agent: z.string(),
    toolSearch: z.enum(['native', 'client']).openapi({ description: 'How deferred tools are offered' }),
    tools: z.array(ToolManifestRowSchema),
    skipped: z
      .array(z.strictObject({ server: z.string(), tool: z.string(), kind: z.string(), reason: z.string() }))
      .openapi({
        description:
          'MCP tools left out, and why (`kind`): a definition refused (`invalid-definition`), a tool the server runs only as a task, or a tool past one of the server’s budgets (`over-budget`: tools, pages or schema bytes)',
      }),
    totals: z
      .strictObject({
        tools: z.number().int(),
        strict: z.number().int(),
        deferred: z.number().int(),
        bytes: z.number().int().openapi({ description: 'The sum of the tools’ schema bytes' }),
      })
      .openapi({ description: 'Counts and sizes over tools' }),
    requestToolsBytes: z.number().int().openapi({ description: 'UTF-8 bytes of the request’s tools array' }),
    requestToolsEntries: z.number().int().openapi({ description: 'Entries of the request’s tools array' }),
    skills: z
      .strictObject({
        loaded: z
          .array(z.string())
          .openapi({ description: 'The Skills the turn would project, in folder order' }),
        skipped: z
          .array(z.strictObject({ file: z.string(), line: z.number().int(), message: z.string() }))
          .openapi({ description: 'Skills left out: the file, the line and the reason' }),
      })
      .optional()
      .openapi({ description: 'The agent’s Skills, when its turns read them' }),
  })
  .openapi('ToolManifest');
