import type { ApprovalRecord, ApprovalStore, RequestApprovalRequest } from '@switchyard/control-plane';
import { ZERO_USAGE } from '@switchyard/core/internal';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

/** The checkpoint of a turn held after its first iteration, no call of its batch let run yet. */
export function firstIterationCheckpoint(items: readonly ResponseInputItem[] = []) {
  return {
    version: 2,
    items: [...items],
    started: [],
    events: [],
    iterations: 1,
    usage: ZERO_USAGE,
    activeMs: 0,
  };
}

/**
 * Records the approval request of a held `write_file` call, as the daemon's approval gate asks for
 * it: for the operator, expiring in a minute, with a first-iteration checkpoint, unless `call` says
 * otherwise.
 */
export function requestWriteApproval(
  approvals: ApprovalStore,
  call: Omit<RequestApprovalRequest, 'toolKey' | 'approvers' | 'expiresInMs' | 'checkpoint'> &
    Partial<Pick<RequestApprovalRequest, 'expiresInMs' | 'checkpoint'>>,
): Promise<ApprovalRecord> {
  return approvals.request({
    toolKey: 'write_file',
    approvers: ['operator'],
    expiresInMs: 60_000,
    checkpoint: firstIterationCheckpoint(),
    ...call,
  });
}
