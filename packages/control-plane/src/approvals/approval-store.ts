import type { Database } from '../database/database';
import { CURSOR_TIME, checkPageCursor, checkPageLimit, cutPage } from '../database/page-rows';
import { type ChangesOptions, readChanges } from '../database/read-changes';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { TURN_COLUMNS, toTurnRecord } from '../turns/turn-rows';
import type { DetachUnit } from '../turns/turn-unit-hooks';
import { checkStoredText } from '../values/check-stored-value';
import type {
  AnswerApprovalOutcome,
  AnswerApprovalRequest,
  ApprovalChanges,
  ApprovalRecord,
  ListApprovalsOptions,
  RequestApprovalRequest,
  ResumableTurn,
} from './approval-record';
import {
  APPROVAL_COLUMN_NAMES,
  APPROVAL_COLUMNS,
  APPROVAL_LIST_COLUMNS,
  type ApprovalRow,
  toApprovalRecord,
} from './approval-rows';
import { checkHeldCall, checkTurnId, shortText } from './check-held-call';
import { lockHoldingTurn, recordApproval, recordedApproval, unitToDetach } from './hold-call';
import { checkCheckpoint } from './stored-arguments';

const APPROVAL_ID = /^approval_[0-9a-f-]{36}$/;
const STATUSES: ReadonlySet<string> = new Set(['pending', 'allowed', 'denied', 'expired', 'cancelled']);

/**
 * Approvals of held tool calls, and the turns waiting for them: a call that a policy asks about is
 * recorded here with its turn's checkpoint (what the worker needs to continue the turn beside its
 * journal: the worker's own JSON); an answer from any process on the database decides it;
 * the worker running the turn, or, when that worker stopped, whichever claims the turn, acts on it
 * once.
 *
 * Contract: bad ids, decisions and options throw `ControlPlaneInputError` naming the field. An
 * approval is decided once (answered, expired or cancelled); a decision is acted on once
 * (`consume`), by the worker that holds the turn at that moment.
 *
 * @example
 * const approval = await controlPlane.approvals.request({ turnId, workerId, callId, toolKey: 'write_file',
 *   activity: 'Writing out.txt', arguments: params, approvers: ['operator'], expiresInMs: 3_600_000,
 *   checkpoint: { version: 3, activeMs: 1200 } });
 * await controlPlane.approvals.answer({ id: approval.id, decision: 'allow', answeredBy: 'api' });
 */
export class ApprovalStore {
  readonly #database: Database;
  readonly #detachUnit: DetachUnit | undefined;

  /** Use `controlPlane.approvals` rather than constructing one. */
  constructor(database: Database, detachUnit?: DetachUnit) {
    this.#database = database;
    this.#detachUnit = detachUnit;
  }

  /**
   * Holds a call of a running turn for an answer: records the approval, marks the turn
   * `waiting-approval` with `checkpoint`, and detaches the turn's unit (task, job, schedule run) from
   * its queue job, so the queue never delivers it again while it waits. Asked again for the same
   * call, it returns the approval already recorded.
   *
   * Contract: throws `ControlPlaneInputError` on `turnId` unless the turn is running or waiting on
   * `workerId`, on `checkpoint` when it is not finite JSON of at most 16 MiB, on `expiresInMs` out of
   * 1 s to 30 days. When the turn's attempt no longer runs its unit (the workflow was cancelled, the
   * unit went to another attempt), the approval is recorded `cancelled` with the reason instead.
   */
  async request(request: RequestApprovalRequest): Promise<ApprovalRecord> {
    const call = checkHeldCall(request);
    return this.#database.transaction(async (transaction) => {
      const turn = await lockHoldingTurn(transaction, call);
      const earlier = await recordedApproval(transaction, call);
      if (earlier !== undefined) return earlier;
      const unit = unitToDetach(turn);
      const closed = unit === undefined ? undefined : await this.#detachUnit?.(transaction, unit);
      return recordApproval(transaction, call, turn, closed);
    });
  }

  /**
   * Replaces the checkpoint of a turn waiting for approval on `workerId` (outputs of calls that
   * finished meanwhile). Resolves false when the turn is not waiting on that worker.
   *
   * Contract: throws `ControlPlaneInputError` on `checkpoint` as `request` does.
   */
  async checkpoint(request: { turnId: string; workerId: string; checkpoint: unknown }): Promise<boolean> {
    const turnId = checkTurnId(request.turnId);
    const checkpoint = checkCheckpoint(request.checkpoint);
    const { rows } = await this.#database.query(
      `UPDATE switchyard.turns SET checkpoint = $3::jsonb
        WHERE id = $1 AND worker_id = $2 AND status = 'waiting-approval' RETURNING 1`,
      [turnId, String(request.workerId), checkpoint],
    );
    return rows.length > 0;
  }

  /** One approval, or undefined for an unknown id. */
  async get(id: string): Promise<ApprovalRecord | undefined> {
    if (typeof id !== 'string' || !APPROVAL_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<ApprovalRow>(
      `SELECT ${APPROVAL_COLUMNS} FROM switchyard.approvals WHERE id = $1`,
      [id],
    );
    return rows[0] === undefined ? undefined : toApprovalRecord(rows[0]);
  }

  /** These approvals as they are now (unknown ids left out): what a waiting worker polls. */
  async getMany(ids: readonly string[]): Promise<ApprovalRecord[]> {
    const checked = ids.filter((id) => typeof id === 'string' && APPROVAL_ID.test(id));
    if (checked.length === 0) return [];
    const { rows } = await this.#database.query<ApprovalRow>(
      `SELECT ${APPROVAL_LIST_COLUMNS} FROM switchyard.approvals WHERE id = ANY($1::text[])`,
      [checked],
    );
    return rows.map(toApprovalRecord);
  }

  /**
   * One page of approvals, newest first, and the cursor of the next page (absent on the last).
   *
   * Contract: throws `ControlPlaneInputError` naming `status`, `agentIds[i]`, `turnId`,
   * `before.createdAt` (not an existing ISO 8601 UTC time), `before.id` or `limit` when bad.
   */
  async page(options: ListApprovalsOptions = {}): Promise<{
    approvals: ApprovalRecord[];
    next?: { createdAt: string; id: string };
  }> {
    if (options.status !== undefined && !STATUSES.has(options.status)) {
      throw new ControlPlaneInputError('status', `must be one of ${[...STATUSES].join(', ')}`);
    }
    const agentIds =
      options.agentIds === undefined
        ? null
        : options.agentIds.map((agent, index) => checkAgentId(agent, `agentIds[${index}]`));
    const turnId = options.turnId === undefined ? null : checkTurnId(options.turnId);
    const before = options.before === undefined ? undefined : checkPageCursor(options.before, APPROVAL_ID);
    const limit = checkPageLimit(options.limit);
    const { rows } = await this.#database.query<ApprovalRow & { cursor_time: string }>(
      `SELECT ${APPROVAL_LIST_COLUMNS}, ${CURSOR_TIME}
         FROM switchyard.approvals
        WHERE ($1::text IS NULL OR status = $1) AND ($2::text[] IS NULL OR agent_id = ANY($2::text[]))
          AND ($3::text IS NULL OR turn_id = $3)
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
        ORDER BY created_at DESC, id DESC LIMIT $6`,
      [options.status ?? null, agentIds, turnId, before?.createdAt ?? null, before?.id ?? null, limit + 1],
    );
    const { rows: page, next } = cutPage(rows, limit);
    return { approvals: page.map(toApprovalRecord), ...(next === undefined ? {} : { next }) };
  }

  /** Approvals, newest first (the first page of `page`). */
  async list(options: ListApprovalsOptions = {}): Promise<ApprovalRecord[]> {
    return (await this.page(options)).approvals;
  }

  /**
   * Answers a pending approval: `allow` runs the held call (once), `deny` gives the model `reason`
   * as the call's output. Any process on the database may answer; the turn continues in the worker
   * running it, or in whichever claims it when that worker is gone.
   *
   * Contract: resolves `answered`, or `already-decided` with the approval as it is (answered,
   * cancelled, or expired: one past its expiry is recorded expired now); undefined for an unknown
   * id. Throws `ControlPlaneInputError` on `decision`, `reason` or `answeredBy` when bad.
   */
  async answer(request: AnswerApprovalRequest): Promise<AnswerApprovalOutcome | undefined> {
    if (request.decision !== 'allow' && request.decision !== 'deny') {
      throw new ControlPlaneInputError('decision', "must be 'allow' or 'deny'");
    }
    const reason =
      request.reason === undefined
        ? null
        : checkStoredText('reason', request.reason, { maxBytes: 4096, allowEmpty: true });
    const answeredBy = checkStoredText('answeredBy', request.answeredBy, { maxBytes: 200 });
    if (typeof request.id !== 'string' || !APPROVAL_ID.test(request.id)) return undefined;
    await this.expireDue();
    const { rows } = await this.#database.query<ApprovalRow>(
      `UPDATE switchyard.approvals
          SET status = $2, reason = $3, answered_by = $4, decided_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = $1 AND status = 'pending' AND expires_at > clock_timestamp()
        RETURNING ${APPROVAL_COLUMNS}`,
      [request.id, request.decision === 'allow' ? 'allowed' : 'denied', reason, answeredBy],
    );
    if (rows[0] !== undefined) return { status: 'answered', approval: toApprovalRecord(rows[0]) };
    const current = await this.get(request.id);
    return current === undefined ? undefined : { status: 'already-decided', approval: current };
  }

  /** Records every pending approval past its expiry as `expired` (a denial) and returns them. */
  async expireDue(): Promise<ApprovalRecord[]> {
    const { rows } = await this.#database.query<ApprovalRow>(
      `UPDATE switchyard.approvals
          SET status = 'expired', decided_at = clock_timestamp(), updated_at = clock_timestamp(),
              reason = 'nobody answered before it expired at ' ||
                       to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        WHERE status = 'pending' AND expires_at <= clock_timestamp()
        RETURNING ${APPROVAL_LIST_COLUMNS}`,
    );
    return rows.map(toApprovalRecord);
  }

  /**
   * Takes the decision of an approval to act on it: only once, and only by the worker that holds
   * its turn (running or waiting) at that moment. When no decision of the turn is left to act on,
   * the turn is `running` again.
   *
   * Contract: resolves the approval, or undefined when it is still pending, was acted on already,
   * or its turn is not this worker's.
   */
  async consume(request: { id: string; workerId: string }): Promise<ApprovalRecord | undefined> {
    if (typeof request.id !== 'string' || !APPROVAL_ID.test(request.id)) return undefined;
    return this.#database.transaction(async (transaction) => {
      const { rows } = await transaction.query<ApprovalRow>(
        `UPDATE switchyard.approvals a
            SET consumed_at = clock_timestamp(), consumed_by = $2, updated_at = clock_timestamp()
          WHERE a.id = $1 AND a.status <> 'pending' AND a.consumed_at IS NULL
            AND EXISTS (SELECT 1 FROM switchyard.turns t WHERE t.id = a.turn_id AND t.worker_id = $2
                          AND t.status IN ('running', 'waiting-approval'))
          RETURNING ${APPROVAL_COLUMN_NAMES.map((column) => `a.${column}`).join(', ')}`,
        [request.id, String(request.workerId)],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      await transaction.query(
        `UPDATE switchyard.turns SET status = 'running', updated_at = clock_timestamp()
          WHERE id = $1 AND status = 'waiting-approval'
            AND NOT EXISTS (SELECT 1 FROM switchyard.approvals
                             WHERE turn_id = $1 AND consumed_at IS NULL AND status <> 'cancelled')`,
        [row.turn_id],
      );
      return toApprovalRecord(row);
    });
  }

  /**
   * Lets a turn waiting for approval go (its worker is shutting down): stores its latest checkpoint
   * and marks it released, so any worker continues it once its approvals are decided. Resolves
   * false when the turn is not waiting on `workerId`.
   */
  async release(request: { turnId: string; workerId: string; checkpoint: unknown }): Promise<boolean> {
    const turnId = checkTurnId(request.turnId);
    const checkpoint = checkCheckpoint(request.checkpoint);
    const { rows } = await this.#database.query(
      `UPDATE switchyard.turns SET checkpoint = $3::jsonb, released_at = clock_timestamp()
        WHERE id = $1 AND worker_id = $2 AND status = 'waiting-approval' RETURNING 1`,
      [turnId, String(request.workerId), checkpoint],
    );
    return rows.length > 0;
  }

  /**
   * Claims, for `workerId`, the turns waiting for approval that it may continue: their worker let
   * them go (`release`) or stopped heartbeating for `staleAfterMs` (with `staleAfterMs: 0`, every
   * other worker's: a database one process opens), and none of their approvals is still pending, or
   * their cancellation was asked for. Each claimed turn is `running` on `workerId` and is its to
   * continue from its checkpoint (or to end, when cancelled). Due approvals are expired first.
   *
   * Contract: a turn is claimed by one worker only, however many look at once; at most `limit`
   * (default 20) per call.
   */
  async claimResumable(request: {
    workerId: string;
    staleAfterMs: number;
    agentIds?: readonly string[];
    limit?: number;
  }): Promise<ResumableTurn[]> {
    const workerId = shortText('workerId', request.workerId, 200);
    if (!Number.isSafeInteger(request.staleAfterMs) || request.staleAfterMs < 0) {
      throw new ControlPlaneInputError('staleAfterMs', 'must be an integer >= 0');
    }
    const agentIds =
      request.agentIds === undefined ? null : request.agentIds.map((agent) => checkAgentId(agent));
    await this.expireDue();
    const claimable = `status = 'waiting-approval' AND worker_id <> $1
      AND (released_at IS NOT NULL OR heartbeat_at <= clock_timestamp() - $2 * interval '1 millisecond')
      AND ($3::text[] IS NULL OR agent_id = ANY($3::text[]))
      AND (cancel_requested IS NOT NULL OR NOT EXISTS
            (SELECT 1 FROM switchyard.approvals a WHERE a.turn_id = turns.id AND a.status = 'pending'))`;
    const { rows: candidates } = await this.#database.query<{ id: string }>(
      `SELECT id FROM switchyard.turns WHERE ${claimable} ORDER BY heartbeat_at, id LIMIT $4`,
      [workerId, request.staleAfterMs, agentIds, request.limit ?? 20],
    );
    const claimed: ResumableTurn[] = [];
    for (const { id } of candidates) {
      const turn = await this.#database.transaction(async (transaction) => {
        const { rows } = await transaction.query<Record<string, unknown>>(
          `UPDATE switchyard.turns
              SET worker_id = $1, status = 'running', released_at = NULL, heartbeat_at = clock_timestamp(),
                  updated_at = clock_timestamp()
            WHERE id = $4 AND ${claimable}
            RETURNING ${TURN_COLUMNS}, checkpoint, unit_detached`,
          [workerId, request.staleAfterMs, agentIds, id],
        );
        const row = rows[0];
        if (row === undefined) return undefined;
        const { rows: approvals } = await transaction.query<ApprovalRow>(
          `SELECT ${APPROVAL_COLUMNS} FROM switchyard.approvals WHERE turn_id = $1 ORDER BY created_at, id`,
          [id],
        );
        const record = toTurnRecord(row);
        return {
          turn: record,
          checkpoint: row.checkpoint ?? null,
          unitDetached: row.unit_detached === true,
          approvals: approvals.map(toApprovalRecord),
          ...(typeof row.cancel_requested === 'string' ? { cancelRequested: row.cancel_requested } : {}),
        } satisfies ResumableTurn;
      });
      if (turn !== undefined) claimed.push(turn);
    }
    return claimed;
  }

  /**
   * Approvals asked or decided at or after `since` (the database's time), oldest change first, at most
   * `limit` (default 200): a change feed for a console, polled with the `now` of the previous
   * answer. At or after: the database's clock may be no finer than a millisecond (PGlite's), so a
   * change in the same instant as `now` comes again in the next answer rather than never; a reader
   * keeps the latest state per id.
   *
   * Contract: throws `ControlPlaneInputError` on `since` when it is not an ISO 8601 UTC time.
   */
  async changes(options: ChangesOptions): Promise<ApprovalChanges> {
    const { rows, now } = await readChanges<ApprovalRow>(
      this.#database,
      'switchyard.approvals',
      APPROVAL_LIST_COLUMNS,
      options,
    );
    return { approvals: rows.map(toApprovalRecord), now };
  }
}
