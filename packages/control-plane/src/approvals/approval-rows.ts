import type { TurnSource } from '../turns/turn-record';
import type { ApprovalFileBefore, ApprovalRecord, ApprovalStatus } from './approval-record';
import { APPROVAL_INLINE_ARGUMENT_BYTES } from './stored-arguments';

/** A row of `switchyard.approvals`, as queries return it. */
export interface ApprovalRow {
  id: string;
  turn_id: string;
  call_id: string;
  call_index: number | null;
  agent_id: string;
  source: TurnSource;
  tool_key: string;
  activity: string;
  arguments: unknown;
  arguments_bytes: number;
  arguments_head: string | null;
  arguments_tail: string | null;
  file_before: ApprovalFileBefore | null;
  approvers: string[];
  status: ApprovalStatus;
  reason: string | null;
  answered_by: string | null;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  consumed_at: Date | null;
  consumed_by: string | null;
  updated_at: Date;
}

/** The columns of `switchyard.approvals`, in the order queries return them. */
export const APPROVAL_COLUMN_NAMES = [
  'id',
  'turn_id',
  'call_id',
  'call_index',
  'agent_id',
  'source',
  'tool_key',
  'activity',
  'arguments',
  'arguments_bytes',
  'arguments_head',
  'arguments_tail',
  'file_before',
  'approvers',
  'status',
  'reason',
  'answered_by',
  'created_at',
  'expires_at',
  'decided_at',
  'consumed_at',
  'consumed_by',
  'updated_at',
];

/** Every column, with the arguments whole. */
export const APPROVAL_COLUMNS = APPROVAL_COLUMN_NAMES.join(', ');
/** Every column, the arguments left out when larger than a list shows (their head and tail instead). */
export const APPROVAL_LIST_COLUMNS = APPROVAL_COLUMN_NAMES.map((name) =>
  name === 'arguments'
    ? `CASE WHEN arguments_bytes <= ${APPROVAL_INLINE_ARGUMENT_BYTES} THEN arguments END AS arguments`
    : name,
).join(', ');

/** A row as the record the store answers with (arguments left out where a list query left them out). */
export function toApprovalRecord(row: ApprovalRow): ApprovalRecord {
  const time = (value: Date) => new Date(value).toISOString();
  const whole = row.arguments_bytes <= APPROVAL_INLINE_ARGUMENT_BYTES || row.arguments !== null;
  return {
    id: row.id,
    turnId: row.turn_id,
    callId: row.call_id,
    ...(row.call_index === null ? {} : { callIndex: row.call_index }),
    agentId: row.agent_id,
    source: row.source,
    toolKey: row.tool_key,
    activity: row.activity,
    ...(whole ? { arguments: row.arguments } : {}),
    argumentsBytes: row.arguments_bytes,
    ...(row.arguments_head === null || row.arguments_tail === null
      ? {}
      : { argumentsPreview: { head: row.arguments_head, tail: row.arguments_tail } }),
    ...(row.file_before === null ? {} : { fileBefore: row.file_before }),
    approvers: row.approvers,
    status: row.status,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.answered_by === null ? {} : { answeredBy: row.answered_by }),
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
    ...(row.decided_at === null ? {} : { decidedAt: time(row.decided_at) }),
    ...(row.consumed_at === null ? {} : { consumedAt: time(row.consumed_at) }),
    ...(row.consumed_by === null ? {} : { consumedBy: row.consumed_by }),
    updatedAt: time(row.updated_at),
  };
}
