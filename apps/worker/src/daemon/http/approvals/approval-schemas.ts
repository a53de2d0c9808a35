import { z } from '@hono/zod-openapi';
import { type AgentFields, optionalTextFields, textFields } from '../shared-schemas';
import { isStorableText, STORABLE_TEXT_ERROR } from '../storable-text';
import { TURN_SOURCES } from '../turns/turn-schemas';

/** Every status an approval can have. */
export const APPROVAL_STATUSES = ['pending', 'allowed', 'denied', 'expired', 'cancelled'] as const;

/** An approval of a held tool call. */
export const ApprovalSchema = z
  .strictObject({
    id: z.string().openapi({ example: 'approval_9f1c2b7e-3d4a-4c5b-8e6f-7a8b9c0d1e2f' }),
    ...textFields(['turnId', 'callId', 'agent']),
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
    fileBefore: z
      .strictObject({
        path: z.string().openapi({ description: 'The path the call names, relative to the agent’s home' }),
        state: z.enum(['text', 'cut', 'binary', 'missing', 'unreadable']).openapi({
          description:
            '`text`: the whole file is `text`; `cut`: `text` is its first 64 KiB at most (cut before a character); `binary`: not UTF-8 text; `missing`: the call creates it; `unreadable`: outside the home, a directory, … (`reason`)',
        }),
        text: z.string().optional().openapi({ description: 'The file’s text (`text`, `cut`)' }),
        bytes: z
          .number()
          .int()
          .optional()
          .openapi({ description: 'The whole file’s size (`text`, `cut`, `binary`)' }),
        reason: z.string().optional().openapi({ description: 'Why it could not be read (`unreadable`)' }),
      })
      .optional()
      .openapi({
        description:
          'For a held `write_file`: the file it would replace, read when the approval was asked for and recorded with it, so the call can be shown as a change',
      }),
    approvers: z.array(z.string()),
    status: z.enum(APPROVAL_STATUSES),
    ...optionalTextFields(['reason', 'answeredBy']),
    ...textFields(['createdAt', 'expiresAt']),
    ...optionalTextFields(['decidedAt', 'consumedAt']),
  })
  .openapi('Approval');

/** A held call's arguments, whole. */
export const ApprovalArgumentsSchema = z
  .strictObject({
    id: z.string(),
    argumentsBytes: z.number().int(),
    arguments: z.unknown().openapi({ description: 'The held call’s arguments, whole, as stored' }),
  })
  .openapi('ApprovalArguments');

/** A page of approvals, newest first. */
export const ApprovalListSchema = z
  .strictObject({ approvals: z.array(ApprovalSchema), nextCursor: z.string().optional() })
  .openapi('ApprovalList');

/** The body of `POST /v1/approvals/{id}`. */
export const AnswerSchema = z
  .strictObject({
    decision: z.enum(['allow', 'deny'], { error: "expected 'allow' or 'deny'" }),
    reason: z.string().max(4000).refine(isStorableText, { error: STORABLE_TEXT_ERROR }).optional(),
    via: z.enum(['api', 'console'], { error: "expected 'api' or 'console'" }).optional().openapi({
      description:
        'Where the operator answered: `console` (the operator console sends it) or `api` (the default). Recorded as the approval’s `answeredBy`.',
    }),
  })
  .openapi('ApprovalAnswer');

/** The approvals' list query, which checks `agent` against the agents served (`agentFields`). */
export function approvalsQuerySchema({ agent, limit, cursor }: AgentFields) {
  return z.strictObject({
    agent: agent.optional(),
    status: z.enum(APPROVAL_STATUSES).optional(),
    turn: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,80}$/)
      .optional(),
    limit,
    cursor: cursor.optional(),
  });
}
