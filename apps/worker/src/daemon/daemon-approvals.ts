import type { z } from '@hono/zod-openapi';
import {
  APPROVAL_INLINE_ARGUMENT_BYTES,
  type ApprovalRecord,
  type ApprovalStore,
} from '@switchyard/control-plane';
import type { AnyWorkerAgentTool } from '@switchyard/core';
import type { ApprovalDecision, ApprovalPolicy, ApprovalTurnSource } from '../config/worker-config';
import { definedFields, pickedFields } from './defined-fields';
import type { ApprovalSchema } from './http/approvals/approval-schemas';

/**
 * An approval as the HTTP API and the event streams show it: the document's `Approval` schema
 * (`ApprovalSchema`, which names and describes each field).
 */
export type DaemonApproval = z.infer<typeof ApprovalSchema>;

/** The API's view of a stored approval. */
export function approvalView(record: ApprovalRecord): DaemonApproval {
  return {
    ...pickedFields(record, ['id', 'turnId', 'callId']),
    ...definedFields(record, ['callIndex']),
    agent: record.agentId,
    ...pickedFields(record, ['source', 'toolKey', 'activity']),
    // Large arguments travel whole only on their own route: lists and events carry a head and tail.
    ...(record.argumentsBytes > APPROVAL_INLINE_ARGUMENT_BYTES || record.arguments === undefined
      ? {}
      : { arguments: record.arguments }),
    ...pickedFields(record, ['argumentsBytes']),
    ...definedFields(record, ['argumentsPreview', 'fileBefore']),
    ...pickedFields(record, ['approvers', 'status']),
    ...definedFields(record, ['reason', 'answeredBy']),
    ...pickedFields(record, ['createdAt', 'expiresAt']),
    ...definedFields(record, ['decidedAt', 'consumedAt']),
  };
}

/** The part of the control plane's `ApprovalStore` a daemon's turns use. */
export type DaemonApprovalStore = Pick<
  ApprovalStore,
  'request' | 'list' | 'getMany' | 'consume' | 'release' | 'expireDue'
>;

/**
 * What the policy does with a call of `tool` (dispatch key `key`) in a turn from `source`:
 * `tools[key]` when listed, else `destructive[source]` for a destructive tool, `readOnly` for a
 * read-only one, and `allow` for a tool that is neither (it writes, but nothing it does is marked
 * destructive). Also names the field that decided (`default` for a default), for the denial's reason.
 *
 * Contract: a pure function of its arguments; a tool marked both destructive and read-only is
 * decided as destructive.
 */
export function decideByPolicy(
  policy: ApprovalPolicy,
  tool: Pick<AnyWorkerAgentTool, 'isDestructive' | 'isReadOnly'>,
  key: string,
  source: ApprovalTurnSource,
): { decision: ApprovalDecision; field: string } {
  const listed = Object.hasOwn(policy.tools, key) ? policy.tools[key] : undefined;
  if (listed !== undefined) return { decision: listed, field: `approvals.tools.${key}` };
  if (tool.isDestructive) {
    return { decision: policy.destructive[source], field: policy.origins.destructive[source] };
  }
  if (tool.isReadOnly) return { decision: policy.readOnly, field: policy.origins.readOnly };
  return { decision: 'allow', field: 'approvals' };
}

/** The reason the model reads for a held call that was not allowed (core prefixes "Tool call denied: "). */
export function denialReason(approval: ApprovalRecord): string {
  switch (approval.status) {
    case 'denied':
      return `an operator denied it${approval.reason === undefined || approval.reason === '' ? '' : `: ${approval.reason}`}`;
    case 'expired':
      return `its approval expired: ${approval.reason ?? 'nobody answered in time'}; it was not run`;
    case 'cancelled':
      return `its approval was cancelled: ${approval.reason ?? 'no reason given'}; it was not run`;
    default:
      return `its approval is ${approval.status}; it was not run`;
  }
}
