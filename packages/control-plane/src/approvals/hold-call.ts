import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import type { TurnSource } from '../turns/turn-record';
import type { InterruptedTurnFacts } from '../turns/turn-unit-hooks';
import type { ApprovalRecord } from './approval-record';
import { APPROVAL_COLUMNS, type ApprovalRow, toApprovalRecord } from './approval-rows';
import type { HeldCall } from './check-held-call';

// The steps of `approvals.request`, each inside its transaction: lock the turn, find the approval
// recorded for the call, or detach the turn's unit and record a new one.

/** The turn holding a call, locked for the transaction. */
interface HoldingTurn {
  agent_id: string;
  source: TurnSource;
  source_id: string | null;
  attempt: number | null;
  worker_id: string;
  status: string;
  unit_detached: boolean;
}

/**
 * Locks the call's turn for the transaction.
 *
 * Contract: throws `ControlPlaneInputError` on `turnId` unless the turn is running or waiting on the
 * call's worker.
 */
export async function lockHoldingTurn(transaction: SqlExecutor, call: HeldCall): Promise<HoldingTurn> {
  const { rows } = await transaction.query<HoldingTurn>(
    `SELECT agent_id, source, source_id, attempt, worker_id, status, unit_detached
       FROM switchyard.turns WHERE id = $1 FOR UPDATE`,
    [call.turnId],
  );
  const turn = rows[0];
  if (turn === undefined) throw new ControlPlaneInputError('turnId', `no turn '${call.turnId}'`);
  if ((turn.status !== 'running' && turn.status !== 'waiting-approval') || turn.worker_id !== call.workerId) {
    throw new ControlPlaneInputError(
      'turnId',
      `turn '${call.turnId}' is ${turn.status} on worker ${turn.worker_id}: only the worker running a turn holds its calls`,
    );
  }
  return turn;
}

/**
 * The approval recorded earlier for this call (its key: `callIndex`, or `callId` without one), or
 * undefined when there is none. The same call asked again gets its approval; anything else under its
 * key is refused, so an answer given for one call can never let another run.
 *
 * Contract: throws `ControlPlaneInputError` on `callId`, `toolKey` or `arguments` when the recorded
 * approval's differ.
 */
export async function recordedApproval(
  transaction: SqlExecutor,
  call: HeldCall,
): Promise<ApprovalRecord | undefined> {
  const { rows } = await transaction.query<ApprovalRow & { same_arguments: boolean }>(
    `SELECT ${APPROVAL_COLUMNS}, arguments = $4::jsonb AS same_arguments FROM switchyard.approvals
      WHERE turn_id = $1 AND CASE WHEN $3::integer IS NULL THEN call_index IS NULL AND call_id = $2
                                  ELSE call_index = $3 END`,
    [call.turnId, call.callId, call.callIndex ?? null, call.arguments.text],
  );
  const earlier = rows[0];
  if (earlier === undefined) return undefined;
  const different =
    earlier.call_id !== call.callId
      ? [
          'callId',
          `is ${JSON.stringify(call.callId)}, but the approval recorded for this call has ${JSON.stringify(earlier.call_id)}`,
        ]
      : earlier.tool_key !== call.toolKey
        ? [
            'toolKey',
            `is ${JSON.stringify(call.toolKey)}, but the approval recorded for this call is for ${JSON.stringify(earlier.tool_key)}`,
          ]
        : earlier.same_arguments
          ? undefined
          : ['arguments', 'differ from those the approval recorded for this call holds'];
  if (different !== undefined) {
    throw new ControlPlaneInputError(
      different[0] as string,
      `${different[1]} (${earlier.id}): one call, one approval, exactly its arguments`,
    );
  }
  return toApprovalRecord(earlier);
}

/** The facts of the turn a unit hook needs, or undefined when the turn has no unit to detach. */
export function unitToDetach(turn: HoldingTurn): InterruptedTurnFacts | undefined {
  if (turn.unit_detached || turn.source_id === null || turn.attempt === null) return undefined;
  return {
    agentId: turn.agent_id,
    source: turn.source,
    sourceId: turn.source_id,
    attempt: turn.attempt,
    workerId: turn.worker_id,
  };
}

/**
 * Records the approval: `pending`, or `cancelled` with `closed` when the turn's attempt no longer
 * runs its unit. A pending one marks the turn `waiting-approval` with the call's checkpoint.
 */
export async function recordApproval(
  transaction: SqlExecutor,
  call: HeldCall,
  turn: HoldingTurn,
  closed: string | undefined,
): Promise<ApprovalRecord> {
  const { rows } = await transaction.query<ApprovalRow>(
    `INSERT INTO switchyard.approvals
       (id, turn_id, call_id, agent_id, source, tool_key, activity, arguments, approvers, expires_at,
        status, reason, decided_at, call_index, arguments_bytes, arguments_head, arguments_tail, file_before)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::text[],
             clock_timestamp() + $10 * interval '1 millisecond',
             CASE WHEN $11::text IS NULL THEN 'pending' ELSE 'cancelled' END, $11::text,
             CASE WHEN $11::text IS NULL THEN NULL ELSE clock_timestamp() END, $12, $13, $14, $15, $16::jsonb)
     RETURNING ${APPROVAL_COLUMNS}`,
    [
      `approval_${randomUUID()}`,
      call.turnId,
      call.callId,
      turn.agent_id,
      turn.source,
      call.toolKey,
      call.activity,
      call.arguments.text,
      call.approvers,
      call.expiresInMs,
      closed ?? null,
      call.callIndex ?? null,
      call.arguments.bytes,
      call.arguments.head,
      call.arguments.tail,
      call.fileBefore,
    ],
  );
  if (closed === undefined) {
    await transaction.query(
      `UPDATE switchyard.turns
          SET status = 'waiting-approval', checkpoint = $2::jsonb, unit_detached = unit_detached OR $3,
              updated_at = CASE WHEN status = 'waiting-approval' THEN updated_at ELSE clock_timestamp() END
        WHERE id = $1`,
      [call.turnId, call.checkpoint, turn.source_id !== null && turn.attempt !== null],
    );
  }
  return toApprovalRecord(rows[0] as ApprovalRow);
}
