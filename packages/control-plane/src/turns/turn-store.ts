import type { Database } from '../database/database';
import { type ChangesOptions, readChanges } from '../database/read-changes';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkStoredText, toStorableText } from '../values/check-stored-value';
import { capText, fitEvents } from './stored-turn-text';
import { checkCount, checkTurnId, END_STATUSES, SOURCES, STATUSES, TURN_ID } from './turn-checks';
import { pageTurns } from './turn-page';
import type {
  InterruptedTurnRecord,
  ListTurnsOptions,
  RecordTurnEndRequest,
  RecordTurnStartRequest,
  TurnChanges,
  TurnCursor,
  TurnEventLog,
  TurnHeartbeat,
  TurnRecord,
  TurnSource,
} from './turn-record';
import { recordOfTurnRow, TURN_COLUMNS, type TurnRow, USAGE_FIELDS } from './turn-rows';
import { describeTurnSources, type TurnSourceDetail } from './turn-sources';
import { TurnStartQueue } from './turn-start-queue';
import type { HandBackUnit, SettleDetachedUnit } from './turn-unit-hooks';

/** Turns looked at per `markInterrupted` call: a sweep's work is bounded; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

const COLUMNS = TURN_COLUMNS;

/**
 * What `recordEnd` sets: $2 status, $3 output, $4 usage, $5 iterations, $6 error, $7 events, $8
 * dropped, $9 the limit that ended it (added to `limited_by`).
 */
const END_ASSIGNMENTS = `status = $2, output = $3, usage = $4::jsonb, iterations = $5, error = $6,
         events = $7::jsonb, events_dropped = $8, ended_at = clock_timestamp(),
         limited_by = CASE WHEN $9::text IS NULL OR $9::text = ANY(limited_by) THEN limited_by
                           ELSE array_append(limited_by, $9::text) END,
         updated_at = clock_timestamp(), checkpoint = NULL, released_at = NULL`;

/** Cancels pending approvals (held calls nobody answered); the caller adds which turn's. */
const CANCEL_PENDING_APPROVALS = `UPDATE switchyard.approvals
     SET status = 'cancelled', reason = 'the turn ended before it was answered',
         decided_at = clock_timestamp(), updated_at = clock_timestamp()
   WHERE status = 'pending'`;

/**
 * Durable records of the turns a worker daemon runs, whatever their source: written when a turn
 * starts and when it ends, so a turn cancelled at shutdown is recorded with its reason, and one cut
 * off by a crash is found by `markInterrupted` (its worker's heartbeats stopped) instead of staying
 * `running` forever.
 *
 * Contract: bad ids, agents, sources and statuses throw `ControlPlaneInputError` naming the field.
 * Model-made text (output, errors, events) never makes a write fail: characters PostgreSQL cannot
 * store become U+FFFD, output and errors over the size limit are cut with a note, and an event log
 * over it keeps its start and end (`eventsDropped` counts what was left out).
 *
 * @example
 * await controlPlane.turns.recordStart({ id, agentId: 'ada', source: 'api', prompt, workerId });
 * // ... run the turn, heartbeat([id]) now and then ...
 * await controlPlane.turns.recordEnd({ id, status: 'completed', output, usage, iterations, events });
 * const record = await controlPlane.turns.get(id);
 */
export class TurnStore {
  readonly #database: Database;
  readonly #maxValueBytes: number;
  readonly #handBack: HandBackUnit | undefined;
  readonly #settleDetached: SettleDetachedUnit | undefined;
  /** Starts of this process, recorded together when they arrive together. */
  readonly #starts: TurnStartQueue;

  /** Use `controlPlane.turns` rather than constructing one. */
  constructor(
    database: Database,
    maxValueBytes: number,
    handBack?: HandBackUnit,
    settleDetached?: SettleDetachedUnit,
  ) {
    this.#database = database;
    this.#maxValueBytes = maxValueBytes;
    this.#handBack = handBack;
    this.#settleDetached = settleDetached;
    this.#starts = new TurnStartQueue(database);
  }

  /**
   * Records a turn as `running`. Starts that arrive while others are being recorded are stored
   * together, in one statement (see `TurnStartQueue`).
   *
   * Contract: throws `ControlPlaneInputError` on `id` when that id is already recorded.
   */
  async recordStart(request: RecordTurnStartRequest): Promise<TurnRecord> {
    const id = checkTurnId(request.id);
    const agentId = checkAgentId(request.agentId);
    if (!SOURCES.has(request.source as string)) {
      throw new ControlPlaneInputError('source', `must be one of ${[...SOURCES].join(', ')}`);
    }
    const sourceId =
      request.sourceId === undefined
        ? null
        : checkStoredText('sourceId', request.sourceId, { maxBytes: 500 });
    const prompt = checkStoredText('prompt', request.prompt, {
      maxBytes: this.#maxValueBytes,
      allowEmpty: true,
    });
    const workerId = checkStoredText('workerId', request.workerId, { maxBytes: 200 });
    const attempt = request.attempt ?? null;
    if (attempt !== null && (!Number.isSafeInteger(attempt) || attempt < 1)) {
      throw new ControlPlaneInputError('attempt', `must be an integer >= 1, got ${String(attempt)}`);
    }
    const row = await this.#starts.record({
      id,
      agentId,
      source: request.source,
      sourceId,
      attempt,
      prompt,
      workerId,
      bytes: Buffer.byteLength(prompt) + (sourceId?.length ?? 0) + 256,
    });
    return recordOfTurnRow(row);
  }

  /**
   * Records how a turn ended. A turn marked `interrupted` while it was in fact still running (its
   * heartbeats were late) takes its real end.
   *
   * Contract: resolves true when recorded; false for an unknown id or a turn that already has its end.
   */
  async recordEnd(request: RecordTurnEndRequest): Promise<boolean> {
    const id = checkTurnId(request.id);
    if (!END_STATUSES.has(request.status as string)) {
      throw new ControlPlaneInputError('status', `must be one of ${[...END_STATUSES].join(', ')}`);
    }
    if (typeof request.output !== 'string') throw new ControlPlaneInputError('output', 'must be a string');
    const usage: Record<string, number> = {};
    for (const field of USAGE_FIELDS) usage[field] = checkCount(`usage.${field}`, request.usage?.[field]);
    const iterations = checkCount('iterations', request.iterations);
    if (request.error !== undefined && typeof request.error !== 'string') {
      throw new ControlPlaneInputError('error', 'must be a string');
    }
    if (request.events !== undefined && !Array.isArray(request.events)) {
      throw new ControlPlaneInputError('events', 'must be an array');
    }
    const limitedBy =
      request.limitedBy === undefined
        ? null
        : checkStoredText('limitedBy', request.limitedBy, { maxBytes: 100 });
    const output = capText(toStorableText(request.output), this.#maxValueBytes);
    const error = request.error === undefined ? null : capText(toStorableText(request.error), 64 * 1024);
    const events = request.events === undefined ? undefined : fitEvents(request.events, this.#maxValueBytes);
    const values = [
      id,
      request.status,
      output,
      JSON.stringify(usage),
      iterations,
      error,
      events?.json ?? null,
      events?.dropped ?? 0,
      limitedBy,
    ];
    // Most turns end with no unit detached from its queue (none of its calls was held): one statement
    // ends the turn and cancels the held calls nobody answered, moot once it has ended (data-modifying
    // WITH clauses always run to completion). The rest, and unknown or already-ended ids, take the
    // transaction below.
    const fast = await this.#database.query<{ ended: number }>(
      `WITH ended AS (
         UPDATE switchyard.turns SET ${END_ASSIGNMENTS}
          WHERE id = $1 AND status IN ('running', 'waiting-approval', 'interrupted') AND NOT unit_detached
          RETURNING id
       ), cancelled AS (
         ${CANCEL_PENDING_APPROVALS} AND turn_id IN (SELECT id FROM ended)
         RETURNING id
       )
       SELECT count(*)::int AS ended FROM ended`,
      values,
    );
    if (fast.rows[0]?.ended === 1) return true;
    return this.#database.transaction(async (transaction) => {
      const { rows } = await transaction.query<{
        agent_id: string;
        source: TurnSource;
        source_id: string | null;
        attempt: number | null;
        worker_id: string;
        unit_detached: boolean;
      }>(
        `UPDATE switchyard.turns SET ${END_ASSIGNMENTS}
          WHERE id = $1 AND status IN ('running', 'waiting-approval', 'interrupted')
          RETURNING agent_id, source, source_id, attempt, worker_id, unit_detached`,
        values,
      );
      const row = rows[0];
      if (row === undefined) return false;
      await transaction.query(`${CANCEL_PENDING_APPROVALS} AND turn_id = $1`, [id]);
      if (row.unit_detached && row.source_id !== null && row.attempt !== null) {
        await this.#settleDetached?.(
          transaction,
          {
            agentId: row.agent_id,
            source: row.source,
            sourceId: row.source_id,
            attempt: row.attempt,
            workerId: row.worker_id,
          },
          {
            status: request.status,
            output: request.output,
            ...(request.error === undefined ? {} : { error: request.error }),
          },
        );
      }
      return true;
    });
  }

  /**
   * Says the turns with these ids are still running (keeps them from being marked interrupted, and a
   * turn waiting for approval from being taken over), only `workerId`'s when given, and answers which
   * of them should stop.
   *
   * Contract: `stop` lists each of these turns whose cancellation was asked for (`requestCancel`),
   * and each that runs detached from its queue (a call of it was held) whose unit was cancelled
   * (`cancelled`) or handed to another attempt.
   */
  async heartbeat(ids: readonly string[], options: { workerId?: string } = {}): Promise<TurnHeartbeat> {
    if (ids.length === 0) return { stop: [] };
    const checked = ids.map((id, index) => checkTurnId(id, `ids[${index}]`));
    // With `workerId`, only that worker's rows: a worker that was only slow does not keep alive a
    // turn another worker took over.
    await this.#database.query(
      `UPDATE switchyard.turns SET heartbeat_at = clock_timestamp()
       WHERE id = ANY($1::text[]) AND status IN ('running', 'waiting-approval')
         AND ($2::text IS NULL OR worker_id = $2)`,
      [checked, options.workerId ?? null],
    );
    const { rows } = await this.#database.query<{ id: string; reason: string }>(
      `SELECT t.id,
              coalesce(t.cancel_requested,
                CASE WHEN coalesce(w.status = 'cancelled', false) OR wt.status = 'cancelled' OR j.status = 'cancelled'
                     THEN 'cancelled'
                     ELSE 'attempt ' || t.attempt || ' was handed to another worker (this one was taken for dead): its work is not kept'
                END) AS reason
         FROM switchyard.turns t
         LEFT JOIN switchyard.workflow_tasks wt
           ON t.source = 'task' AND t.unit_detached
          AND wt.workflow_id::text = split_part(t.source_id, '/', 1)
          AND wt.task_id = substr(t.source_id, strpos(t.source_id, '/') + 1)
         LEFT JOIN switchyard.workflows w ON w.id = wt.workflow_id
         LEFT JOIN switchyard.background_jobs j ON t.source = 'job' AND t.unit_detached AND j.id::text = t.source_id
        WHERE t.id = ANY($1::text[]) AND t.status IN ('running', 'waiting-approval')
          AND (t.cancel_requested IS NOT NULL
               OR (wt.task_id IS NOT NULL AND (w.status = 'cancelled' OR wt.status IN ('cancelled', 'failed', 'queued')
                                               OR wt.attempts <> t.attempt))
               OR (j.id IS NOT NULL AND (j.status IN ('cancelled', 'failed', 'queued') OR j.attempts <> t.attempt)))`,
      [checked],
    );
    return { stop: rows };
  }

  /**
   * Asks for a turn to be cancelled, whichever process runs it: its worker sees it in its next
   * heartbeat (`stop`) and aborts the turn; a turn waiting for approval whose worker is gone is ended
   * by the next process that looks for turns to continue.
   *
   * Contract: resolves with the turn's record (with `cancelRequested`) when it had not ended, the
   * record unchanged when it had, undefined for an unknown id.
   */
  async requestCancel(id: string, reason: string): Promise<TurnRecord | undefined> {
    if (typeof id !== 'string' || !TURN_ID.test(id)) return undefined;
    const text = capText(toStorableText(String(reason)), 4096);
    const { rows } = await this.#database.query<TurnRow>(
      `UPDATE switchyard.turns SET cancel_requested = coalesce(cancel_requested, $2)
        WHERE id = $1 AND status IN ('running', 'waiting-approval') RETURNING ${COLUMNS}`,
      [id, text],
    );
    const row = rows[0];
    return row === undefined ? this.get(id) : recordOfTurnRow(row);
  }

  /**
   * Turns that started or changed status at or after `since` (the database's time), oldest change
   * first, at most `limit` (default 200): a change feed for a console, polled with the `now` of the
   * previous answer. At or after: the database's clock may be no finer than a millisecond (PGlite's),
   * so a change in the same instant as `now` comes again in the next answer rather than never; a
   * reader keeps the latest state per id.
   *
   * Contract: throws `ControlPlaneInputError` on `since` when it is not an ISO 8601 UTC time.
   */
  async changes(options: ChangesOptions): Promise<TurnChanges> {
    const { rows, now } = await readChanges<TurnRow>(this.#database, 'switchyard.turns', COLUMNS, options);
    return { turns: rows.map(recordOfTurnRow), now };
  }

  /**
   * Marks `interrupted` every running turn whose last heartbeat is older than `staleAfterMs`: its
   * worker stopped without recording an end. `staleAfterMs: 0` with `exceptWorkerId` marks every
   * running turn of other workers (for a database only one process can open, at start-up). The unit
   * of work each one ran (a workflow task, a background job, a schedule fire) is handed back to its
   * queue at once in the same transaction, for any live worker to take as its next attempt, or
   * parked as failed once it is out of retries; the turn's `error` says which.
   *
   * Contract: returns the turns marked (at most 100 per call; the next call takes the rest), each
   * with its `recovery`; each keeps what was recorded at its start and gets `reason` (and what became
   * of its unit) as its error. Turns of `exceptWorkerId` are left alone. A turn two processes find at
   * once is marked and handed back by one of them. A unit is handed back only while the attempt the
   * turn ran is still its current one and it is running: one that ended, was cancelled or was taken
   * over by another attempt is left as it is (`outcome: 'settled'`).
   */
  async markInterrupted(options: {
    staleAfterMs: number;
    reason?: string;
    exceptWorkerId?: string;
    /**
     * Agents whose API turns are left running, for `claimInterrupted` to take over: a process that
     * resumes API turns passes its agents, so a turn that went stale between its claim and its sweep
     * is not marked `interrupted`, which no process can resume.
     */
    leaveApiTurnsOf?: readonly string[];
  }): Promise<InterruptedTurnRecord[]> {
    const staleAfterMs = checkCount('staleAfterMs', options.staleAfterMs);
    const reason = toStorableText(
      options.reason ?? 'the worker running this turn stopped before the turn ended',
    );
    const exceptWorkerId = options.exceptWorkerId ?? null;
    const stale = `status = 'running' AND heartbeat_at <= clock_timestamp() - $1 * interval '1 millisecond'
         AND ($2::text IS NULL OR worker_id <> $2)`;
    const leave = (options.leaveApiTurnsOf ?? []).map((agentId) => checkAgentId(agentId));
    const { rows: candidates } = await this.#database.query<{ id: string }>(
      `SELECT id FROM switchyard.turns
        WHERE ${stale} AND NOT (source = 'api' AND agent_id = ANY($3::text[]))
        ORDER BY heartbeat_at, id LIMIT ${SWEEP_BATCH}`,
      [staleAfterMs, exceptWorkerId, leave],
    );
    const marked: InterruptedTurnRecord[] = [];
    for (const { id } of candidates) {
      // One transaction per turn: the mark and the hand-back commit together, and one turn's
      // trouble does not hold back the others' (they are already committed).
      const record = await this.#database.transaction(async (transaction) => {
        // Checked again under the row lock: a heartbeat may have come, or another process marked it.
        const { rows } = await transaction.query<TurnRow>(
          `UPDATE switchyard.turns
              SET status = 'interrupted', error = $3, ended_at = clock_timestamp(), updated_at = clock_timestamp()
           WHERE id = $4 AND ${stale} RETURNING ${COLUMNS}`,
          [staleAfterMs, exceptWorkerId, reason, id],
        );
        const row = rows[0];
        if (row === undefined) return undefined;
        const turn: InterruptedTurnRecord = recordOfTurnRow(row);
        if (this.#handBack === undefined || row.source_id === null || row.attempt === null) return turn;
        const handedBack = await this.#handBack(transaction, {
          agentId: row.agent_id,
          source: row.source,
          sourceId: row.source_id,
          attempt: row.attempt,
          workerId: row.worker_id,
        });
        if (handedBack === undefined) return turn;
        turn.recovery = { ...handedBack, attempt: row.attempt, previousWorkerId: row.worker_id };
        turn.error = capText(`${reason}; ${handedBack.description}`, 64 * 1024);
        await transaction.query('UPDATE switchyard.turns SET error = $2 WHERE id = $1', [id, turn.error]);
        return turn;
      });
      if (record !== undefined) marked.push(record);
    }
    return marked;
  }

  /**
   * Takes over the running turns of `sources` for `agentIds` whose worker stopped heartbeating
   * `staleAfterMs` ago (`0` with `exceptWorkerId`: every running turn of other workers, for a
   * database one process can open): each becomes `workerId`'s, heartbeating now, its `resumedCount`
   * one more, for that worker to resume from its journal. One process takes a turn, however many look
   * at once.
   *
   * Contract: returns the turns taken (at most 100 per call; the next call takes the rest); turns of
   * `exceptWorkerId` and of other sources or agents are left alone (`markInterrupted` ends those).
   */
  async claimInterrupted(options: {
    staleAfterMs: number;
    workerId: string;
    agentIds: readonly string[];
    sources: readonly TurnSource[];
    exceptWorkerId?: string;
  }): Promise<TurnRecord[]> {
    const staleAfterMs = checkCount('staleAfterMs', options.staleAfterMs);
    const workerId = checkStoredText('workerId', options.workerId, { maxBytes: 200 });
    const agentIds = options.agentIds.map((agentId) => checkAgentId(agentId));
    for (const source of options.sources) {
      if (!SOURCES.has(source)) throw new ControlPlaneInputError('sources', `unknown source ${source}`);
    }
    if (agentIds.length === 0 || options.sources.length === 0) return [];
    const { rows } = await this.#database.query<TurnRow>(
      `UPDATE switchyard.turns
          SET worker_id = $3, heartbeat_at = clock_timestamp(), updated_at = clock_timestamp(),
              resumed_count = resumed_count + 1, resumed_at = clock_timestamp()
        WHERE id IN (
          SELECT id FROM switchyard.turns
           WHERE status = 'running' AND heartbeat_at <= clock_timestamp() - $1 * interval '1 millisecond'
             AND ($2::text IS NULL OR worker_id <> $2)
             AND agent_id = ANY($4::text[]) AND source = ANY($5::text[])
           ORDER BY heartbeat_at, id LIMIT ${SWEEP_BATCH}
           FOR UPDATE SKIP LOCKED)
          AND status = 'running'
        RETURNING ${COLUMNS}`,
      [staleAfterMs, options.exceptWorkerId ?? null, workerId, agentIds, [...options.sources]],
    );
    return rows.map(recordOfTurnRow);
  }

  /**
   * Where each of `turns` came from, by name (`TurnSourceDetail`), keyed by turn id: two lookups
   * by primary key, whatever the number of turns. API turns have no entry.
   */
  sources(turns: readonly TurnRecord[]): Promise<Map<string, TurnSourceDetail>> {
    return describeTurnSources(this.#database, turns);
  }

  /**
   * The checkpoint of a turn that has not ended (what its worker stored when a call of it was held,
   * or when it let it go: its events and usage so far), or undefined when it has none or ended.
   */
  async checkpoint(id: string): Promise<unknown> {
    if (typeof id !== 'string' || !TURN_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<{ checkpoint: unknown }>(
      'SELECT checkpoint FROM switchyard.turns WHERE id = $1 AND ended_at IS NULL',
      [id],
    );
    return rows[0]?.checkpoint ?? undefined;
  }

  /** One turn's record, or undefined for an unknown id. */
  async get(id: string): Promise<TurnRecord | undefined> {
    if (typeof id !== 'string' || !TURN_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<TurnRow>(
      `SELECT ${COLUMNS} FROM switchyard.turns WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? undefined : recordOfTurnRow(row);
  }

  /** One turn's stored event log (empty while it runs), or undefined for an unknown id. */
  async events(id: string): Promise<TurnEventLog | undefined> {
    if (typeof id !== 'string' || !TURN_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<{ events: unknown[] | null; events_dropped: number }>(
      'SELECT events, events_dropped FROM switchyard.turns WHERE id = $1',
      [id],
    );
    const row = rows[0];
    return row === undefined ? undefined : { events: row.events ?? [], dropped: row.events_dropped };
  }

  /**
   * How many events one turn's stored log holds (0 while it runs), counted by the database without
   * reading the log, or undefined for an unknown id: what a view that only counts them needs.
   */
  async eventCount(id: string): Promise<number | undefined> {
    if (typeof id !== 'string' || !TURN_ID.test(id)) return undefined;
    const { rows } = await this.#database.query<{ count: number | string }>(
      'SELECT coalesce(jsonb_array_length(events), 0) AS count FROM switchyard.turns WHERE id = $1',
      [id],
    );
    const row = rows[0];
    return row === undefined ? undefined : Number(row.count);
  }

  /**
   * Recorded turns, newest first.
   *
   * Contract: throws `ControlPlaneInputError` naming `agentId`, `status` or `limit` when bad.
   */
  async list(options: ListTurnsOptions = {}): Promise<TurnRecord[]> {
    return (await this.page(options)).turns;
  }

  /**
   * One page of recorded turns, newest first, and the cursor of the next page (`before` of the next
   * call; absent on the last page). Takes the options of `list`.
   *
   * Contract: throws `ControlPlaneInputError` naming `agentId`, `agentIds[i]`, `status`, `source`,
   * `before.createdAt`, `before.id`, `limit`, `text`, `createdAfter` or `createdBefore` when bad. A
   * search (`text`) reads at most `TURN_SEARCH_SCAN_ROWS` turns past its cursor: its page may hold
   * fewer than `limit` turns, even none, with a `next` cursor to go on from.
   */
  page(options: ListTurnsOptions = {}): Promise<{ turns: TurnRecord[]; next?: TurnCursor }> {
    return pageTurns(this.#database, options, { statuses: STATUSES, sources: SOURCES, turnId: TURN_ID });
  }
}
