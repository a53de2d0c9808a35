import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText, toStorableText } from '../values/check-stored-value';
import type { RequestApprovalRequest } from './approval-record';
import { checkFileBefore } from './file-before';
import { checkCheckpoint, type StoredArguments, storableArguments } from './stored-arguments';

const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
const MAX_EXPIRY_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_CALL_INDEX = 2 ** 31 - 1;

/** A call to hold, as `approvals.request` checked it: what the approval and the turn store. */
export interface HeldCall {
  turnId: string;
  workerId: string;
  callId: string;
  callIndex: number | undefined;
  toolKey: string;
  activity: string;
  approvers: string[];
  expiresInMs: number;
  /** The turn's checkpoint as stored JSON text. */
  checkpoint: string;
  arguments: StoredArguments;
  /** The replaced file as stored JSON text, or null. */
  fileBefore: string | null;
}

/** A turn id, or `ControlPlaneInputError` on `field`. */
export function checkTurnId(value: unknown, field = 'turnId'): string {
  if (typeof value !== 'string' || !TURN_ID.test(value)) {
    throw new ControlPlaneInputError(field, `must be a turn id, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Text of at most `maxBytes`, characters PostgreSQL cannot store replaced. */
export function shortText(field: string, value: unknown, maxBytes: number): string {
  return checkStoredText(field, toStorableText(String(value ?? '')), { maxBytes, allowEmpty: true });
}

/**
 * Checks what `approvals.request` was given, before anything is read or written.
 *
 * Contract: throws `ControlPlaneInputError` naming the field: `turnId`, `workerId`, `callId`,
 * `callIndex` (an integer from 0 to 2^31 - 1), `toolKey`, `activity`, `approvers` (at least one),
 * `expiresInMs` (1 s to 30 days), `checkpoint` (finite JSON of at most 16 MiB) and `arguments`
 * (finite JSON of at most 16 MiB, stored whole), and `fileBefore` (see `checkFileBefore`).
 */
export function checkHeldCall(request: RequestApprovalRequest): HeldCall {
  const turnId = checkTurnId(request.turnId);
  const workerId = shortText('workerId', request.workerId, 200);
  const callId = checkStoredText('callId', request.callId, { maxBytes: 200 });
  const callIndex = request.callIndex;
  if (
    callIndex !== undefined &&
    !(Number.isSafeInteger(callIndex) && callIndex >= 0 && callIndex <= MAX_CALL_INDEX)
  ) {
    throw new ControlPlaneInputError(
      'callIndex',
      `must be an integer from 0 to ${MAX_CALL_INDEX}, got ${String(callIndex)}`,
    );
  }
  const toolKey = checkStoredText('toolKey', request.toolKey, { maxBytes: 200 });
  const activity = shortText('activity', request.activity, 2000);
  if (!Array.isArray(request.approvers) || request.approvers.length === 0) {
    throw new ControlPlaneInputError('approvers', 'name at least one approver');
  }
  const approvers = request.approvers.map((name, index) => shortText(`approvers[${index}]`, name, 200));
  const expiresInMs = request.expiresInMs;
  if (!Number.isInteger(expiresInMs) || expiresInMs < 1000 || expiresInMs > MAX_EXPIRY_MS) {
    throw new ControlPlaneInputError(
      'expiresInMs',
      `must be a whole number of ms from 1000 to ${MAX_EXPIRY_MS}`,
    );
  }
  const checkpoint = checkCheckpoint(request.checkpoint);
  return {
    turnId,
    workerId,
    callId,
    callIndex,
    toolKey,
    activity,
    approvers,
    expiresInMs,
    checkpoint,
    arguments: storableArguments(request.arguments),
    fileBefore: checkFileBefore(request.fileBefore),
  };
}
