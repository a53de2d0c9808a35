import { randomUUID } from 'node:crypto';
import type { Database, SqlExecutor } from '../database/database';
import { CURSOR_TIME, checkPageCursor, checkPageLimit, cutPage } from '../database/page-rows';
import { type ChangesOptions, readChanges } from '../database/read-changes';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import type { TurnSource } from '../turns/turn-record';
import { type InterruptedTurnFacts, TURN_COLUMNS, toTurnRecord } from '../turns/turn-store';
import { checkStoredJson, checkStoredText, toStorableText } from '../values/check-stored-value';
import type {
  AnswerApprovalOutcome,
  AnswerApprovalRequest,
  ApprovalChanges,
  ApprovalRecord,
  ApprovalStatus,
  ListApprovalsOptions,
  RequestApprovalRequest,
  ResumableTurn,
} from './approval-record';

/**
 * Internal: detaches the unit a turn runs (task, job, schedule run) from its queue job inside the
 * caller's transaction; resolves undefined when done, or why the turn's attempt no longer runs it.
 */
export type DetachUnit = (
  transaction: SqlExecutor,
  turn: InterruptedTurnFacts,
) => Promise<string | undefined>;

const APPROVAL_ID = /^approval_[0-9a-f-]{36}$/;
const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
const STATUSES: ReadonlySet<string> = new Set(['pending', 'allowed', 'denied', 'expired', 'cancelled']);
/** A held turn's checkpoint carries its transcript: larger than any single stored value. */
const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;
/**
 * The largest arguments a call may be held with, stored whole: what an operator allows is exactly
 * what runs, so nothing larger is held (the caller denies it instead). As large as a checkpoint, which
 * carries them too.
 */
export const APPROVAL_MAX_ARGUMENT_BYTES = MAX_CHECKPOINT_BYTES;
/** Arguments up to this size come whole in lists; larger ones come as a head and a tail. */
export const APPROVAL_INLINE_ARGUMENT_BYTES = 64 * 1024;
/** The size of the head and of the tail a list shows of larger arguments. */
export const APPROVAL_PREVIEW_BYTES = 4 * 1024;
const MAX_EXPIRY_MS = 30 * 24 * 60 * 60 * 1000;

interface ApprovalRow {
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

const COLUMN_NAMES = [
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
const COLUMNS = COLUMN_NAMES.join(', ');
/** Every column, the arguments left out when larger than a list shows (their head and tail instead). */
const LIST_COLUMNS = COLUMN_NAMES.map((name) =>
  name === 'arguments'
    ? `CASE WHEN arguments_bytes <= ${APPROVAL_INLINE_ARGUMENT_BYTES} THEN arguments END AS arguments`
    : name,
).join(', ');

function toRecord(row: ApprovalRow): ApprovalRecord {
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

function checkTurnId(value: unknown, field = 'turnId'): string {
  if (typeof value !== 'string' || !TURN_ID.test(value)) {
    throw new ControlPlaneInputError(field, `must be a turn id, got ${JSON.stringify(value)}`);
  }
  return value;
}

function shortText(field: string, value: unknown, maxBytes: number): string {
  return checkStoredText(field, toStorableText(String(value ?? '')), { maxBytes, allowEmpty: true });
}

/** The first `bytes` of `text` in UTF-8, cut before a character rather than inside one. */
function headOf(text: string, bytes: number): string {
  const head = Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8');
  // A cut inside a character decodes to U+FFFD at the end: drop it.
  return head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
}

/** The last `bytes` of `text` in UTF-8, cut after a character rather than inside one. */
function tailOf(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  const tail = encoded.subarray(Math.max(0, encoded.length - bytes)).toString('utf8');
  return tail.startsWith('\uFFFD') && !text.endsWith(tail) ? tail.replace(/^\uFFFD+/, '') : tail;
}

/** A held call's arguments as stored: whole, with their size, and a head and tail when large. */
function storableArguments(value: unknown): {
  text: string;
  bytes: number;
  head: string | null;
  tail: string | null;
} {
  const checked = checkStoredJson(value, { maxBytes: APPROVAL_MAX_ARGUMENT_BYTES });
  if (!checked.ok) {
    throw new ControlPlaneInputError(
      'arguments',
      `cannot be stored whole for an operator to see, so the call cannot be held: ${checked.reason}`,
    );
  }
  const bytes = Buffer.byteLength(checked.text, 'utf8');
  if (bytes <= APPROVAL_INLINE_ARGUMENT_BYTES) return { text: checked.text, bytes, head: null, tail: null };
  return {
    text: checked.text,
    bytes,
    head: headOf(checked.text, APPROVAL_PREVIEW_BYTES),
    tail: tailOf(checked.text, APPROVAL_PREVIEW_BYTES),
  };
}

/**
 * Approvals of held tool calls, and the turns waiting for them: a call that a policy asks about is
 * recorded here with its turn's checkpoint; an answer from any process on the database decides it;
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
 *   checkpoint: { items: call.transcript() } });
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
    const turnId = checkTurnId(request.turnId);
    const workerId = shortText('workerId', request.workerId, 200);
    const callId = checkStoredText('callId', request.callId, { maxBytes: 200 });
    const callIndex = request.callIndex;
    if (
      callIndex !== undefined &&
      !(Number.isSafeInteger(callIndex) && callIndex >= 0 && callIndex <= 2 ** 31 - 1)
    ) {
      throw new ControlPlaneInputError(
        'callIndex',
        `must be an integer from 0 to ${2 ** 31 - 1}, got ${String(callIndex)}`,
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
    const checkpoint = checkStoredJson(request.checkpoint, { maxBytes: MAX_CHECKPOINT_BYTES });
    if (!checkpoint.ok) throw new ControlPlaneInputError('checkpoint', checkpoint.reason);
    const stored = storableArguments(request.arguments);
    return this.#database.transaction(async (transaction) => {
      const { rows: turns } = await transaction.query<{
        agent_id: string;
        source: TurnSource;
        source_id: string | null;
        attempt: number | null;
        worker_id: string;
        status: string;
        unit_detached: boolean;
      }>(
        `SELECT agent_id, source, source_id, attempt, worker_id, status, unit_detached
           FROM switchyard.turns WHERE id = $1 FOR UPDATE`,
        [turnId],
      );
      const turn = turns[0];
      if (turn === undefined) throw new ControlPlaneInputError('turnId', `no turn '${turnId}'`);
      if ((turn.status !== 'running' && turn.status !== 'waiting-approval') || turn.worker_id !== workerId) {
        throw new ControlPlaneInputError(
          'turnId',
          `turn '${turnId}' is ${turn.status} on worker ${turn.worker_id}: only the worker running a turn holds its calls`,
        );
      }
      const { rows: existing } = await transaction.query<ApprovalRow & { same_arguments: boolean }>(
        `SELECT ${COLUMNS}, arguments = $4::jsonb AS same_arguments FROM switchyard.approvals
          WHERE turn_id = $1 AND CASE WHEN $3::integer IS NULL THEN call_index IS NULL AND call_id = $2
                                      ELSE call_index = $3 END`,
        [turnId, callId, callIndex ?? null, stored.text],
      );
      const earlier = existing[0];
      if (earlier !== undefined) {
        // The same call asked again gets its approval; anything else under its key is refused, so an
        // answer given for one call can never let another run.
        const different =
          earlier.call_id !== callId
            ? [
                'callId',
                `is ${JSON.stringify(callId)}, but the approval recorded for this call has ${JSON.stringify(earlier.call_id)}`,
              ]
            : earlier.tool_key !== toolKey
              ? [
                  'toolKey',
                  `is ${JSON.stringify(toolKey)}, but the approval recorded for this call is for ${JSON.stringify(earlier.tool_key)}`,
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
        return toRecord(earlier);
      }
      let closed: string | undefined;
      if (!turn.unit_detached && turn.source_id !== null && turn.attempt !== null) {
        closed = await this.#detachUnit?.(transaction, {
          agentId: turn.agent_id,
          source: turn.source,
          sourceId: turn.source_id,
          attempt: turn.attempt,
          workerId: turn.worker_id,
        });
      }
      const { rows } = await transaction.query<ApprovalRow>(
        `INSERT INTO switchyard.approvals
           (id, turn_id, call_id, agent_id, source, tool_key, activity, arguments, approvers, expires_at,
            status, reason, decided_at, call_index, arguments_bytes, arguments_head, arguments_tail)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::text[],
                 clock_timestamp() + $10 * interval '1 millisecond',
                 CASE WHEN $11::text IS NULL THEN 'pending' ELSE 'cancelled' END, $11::text,
                 CASE WHEN $11::text IS NULL THEN NULL ELSE clock_timestamp() END, $12, $13, $14, $15)
         RETURNING ${COLUMNS}`,
        [
          `approval_${randomUUID()}`,
          turnId,
          callId,
          turn.agent_id,
          turn.source,
          toolKey,
          activity,
          stored.text,
          approvers,
          expiresInMs,
          closed ?? null,
          callIndex ?? null,
          stored.bytes,
          stored.head,
          stored.tail,
        ],
      );
      if (closed === undefined) {
        await transaction.query(
          `UPDATE switchyard.turns
              SET status = 'waiting-approval', checkpoint = $2::jsonb, unit_detached = unit_detached OR $3,
                  updated_at = CASE WHEN status = 'waiting-approval' THEN updated_at ELSE clock_timestamp() END
            WHERE id = $1`,
          [turnId, checkpoint.text, turn.source_id !== null && turn.attempt !== null],
        );
      }
      return toRecord(rows[0] as ApprovalRow);
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
    const checkpoint = checkStoredJson(request.checkpoint, { maxBytes: MAX_CHECKPOINT_BYTES });
    if (!checkpoint.ok) throw new ControlPlaneInputError('checkpoint', checkpoint.reason);
    const { rows } = await this.#database.query(
      `UPDATE switchyard.turns SET checkpoint = $3::jsonb
        WHERE id = $1 AND worker_id = $2 AND status = 'waiting-approval' RETURNING 1`,
      [turnId, String(request.workerId), checkpoint.text],
    );
    return rows.length > 0;
  }

  /** One approval, or undefined for an unknown id. */
  async get(id: string): Promise<ApprovalRecord | undefined> {
    if (typeof id !== 'string' || !APPROVAL_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<ApprovalRow>(
      `SELECT ${COLUMNS} FROM switchyard.approvals WHERE id = $1`,
      [id],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /** These approvals as they are now (unknown ids left out): what a waiting worker polls. */
  async getMany(ids: readonly string[]): Promise<ApprovalRecord[]> {
    const checked = ids.filter((id) => typeof id === 'string' && APPROVAL_ID.test(id));
    if (checked.length === 0) return [];
    const { rows } = await this.#database.query<ApprovalRow>(
      `SELECT ${LIST_COLUMNS} FROM switchyard.approvals WHERE id = ANY($1::text[])`,
      [checked],
    );
    return rows.map(toRecord);
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
      `SELECT ${LIST_COLUMNS}, ${CURSOR_TIME}
         FROM switchyard.approvals
        WHERE ($1::text IS NULL OR status = $1) AND ($2::text[] IS NULL OR agent_id = ANY($2::text[]))
          AND ($3::text IS NULL OR turn_id = $3)
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
        ORDER BY created_at DESC, id DESC LIMIT $6`,
      [options.status ?? null, agentIds, turnId, before?.createdAt ?? null, before?.id ?? null, limit + 1],
    );
    const { rows: page, next } = cutPage(rows, limit);
    return { approvals: page.map(toRecord), ...(next === undefined ? {} : { next }) };
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
        RETURNING ${COLUMNS}`,
      [request.id, request.decision === 'allow' ? 'allowed' : 'denied', reason, answeredBy],
    );
    if (rows[0] !== undefined) return { status: 'answered', approval: toRecord(rows[0]) };
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
        RETURNING ${LIST_COLUMNS}`,
    );
    return rows.map(toRecord);
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
          RETURNING ${COLUMN_NAMES.map((column) => `a.${column}`).join(', ')}`,
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
      return toRecord(row);
    });
  }

  /**
   * Lets a turn waiting for approval go (its worker is shutting down): stores its latest checkpoint
   * and marks it released, so any worker continues it once its approvals are decided. Resolves
   * false when the turn is not waiting on `workerId`.
   */
  async release(request: { turnId: string; workerId: string; checkpoint: unknown }): Promise<boolean> {
    const turnId = checkTurnId(request.turnId);
    const checkpoint = checkStoredJson(request.checkpoint, { maxBytes: MAX_CHECKPOINT_BYTES });
    if (!checkpoint.ok) throw new ControlPlaneInputError('checkpoint', checkpoint.reason);
    const { rows } = await this.#database.query(
      `UPDATE switchyard.turns SET checkpoint = $3::jsonb, released_at = clock_timestamp()
        WHERE id = $1 AND worker_id = $2 AND status = 'waiting-approval' RETURNING 1`,
      [turnId, String(request.workerId), checkpoint.text],
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
          `SELECT ${COLUMNS} FROM switchyard.approvals WHERE turn_id = $1 ORDER BY created_at, id`,
          [id],
        );
        const record = toTurnRecord(row);
        return {
          turn: record,
          checkpoint: row.checkpoint ?? null,
          unitDetached: row.unit_detached === true,
          approvals: approvals.map(toRecord),
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
      LIST_COLUMNS,
      options,
    );
    return { approvals: rows.map(toRecord), now };
  }
}
