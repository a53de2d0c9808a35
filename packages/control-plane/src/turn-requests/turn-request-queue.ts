import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { ConsumedQueue } from '../queues/consumed-queue';
import { isFinishedTurnEnd, turnEndReason } from '../turns/detached-turn-end';
import type {
  DetachUnit,
  HandBackUnit,
  InterruptedTurnFacts,
  SettleDetachedUnit,
} from '../turns/turn-unit-hooks';
import { errorText } from '../values/error-text';
import type { TurnRequest, TurnRequestHandler } from './turn-request';

/** How turn requests are delivered. */
export interface TurnRequestOptions {
  /** How long a delivery may run before it counts as lost and is retried, in seconds. Default 900. */
  expireInSeconds?: number;
  /** Retries after the first delivery. Default 3. */
  retryLimit?: number;
  /**
   * Seconds before a retry after a failed delivery. Default 10. A run whose worker died goes back at
   * once for its first retry and waits this long before each later one.
   */
  retryDelaySeconds?: number;
  /** Double the retry delay with each further retry. Default false. */
  retryBackoff?: boolean;
  /** How often an idle consumer polls, in seconds (at least 0.5). Default 2. */
  pollingIntervalSeconds?: number;
}

/** What `work` takes. */
export interface TurnRequestWorkOptions {
  /** The agent whose turn requests to consume. Default: the control plane's `agentId`. */
  agentId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A schedule run as `#lockRun` reads it: enough to decide what becomes of it. */
interface LockedRun {
  status: string;
  attempts: number;
  /** Its current queue job, or its own id before its first job. */
  job_id: string;
  agent_id: string;
}

/** The pg-boss queue of one agent's turn requests. */
export function turnRequestQueueName(agentId: string): string {
  return `switchyard.turn-requests.${agentId}`;
}

/**
 * Turn requests: enqueued by the scheduler, one per (schedule, slot), and consumed by the worker's
 * daemon with `work(handler)`.
 *
 * Contract: delivery is at-least-once (a handler may run again after a crash or a throw); the
 * ledger row of the (schedule, slot) is completed once, by the attempt currently running it, and a
 * delivery of an already completed run, or of a job that no longer carries it (the run was handed
 * back with a new one), is acknowledged without calling the handler.
 */
export class TurnRequestQueue extends ConsumedQueue<TurnRequest, Required<TurnRequestOptions>> {
  /** Use `controlPlane.turnRequests` rather than constructing one. */
  constructor(
    boss: PgBoss,
    database: Database,
    options: Required<TurnRequestOptions>,
    defaultAgentId: string | undefined,
  ) {
    super(boss, options, {
      database,
      queueName: turnRequestQueueName,
      contents: 'turn requests',
      defaultAgentId,
    });
  }

  /** Enqueues turn requests inside the caller's transaction, each with its run id as the job id. */
  async enqueue(transaction: SqlExecutor, requests: readonly TurnRequest[]): Promise<void> {
    await this.consumer.insert(
      transaction,
      requests.map((request) => ({ id: request.runId, agentId: request.agentId, data: request })),
    );
  }

  /**
   * Starts consuming the agent's turn requests: each delivery marks its ledger row running, calls
   * `handler`, then marks it completed. Returns the pg-boss worker id.
   *
   * Contract: throws `ControlPlaneInputError` on `agentId` when neither the option nor the control
   * plane's `agentId` names an agent. A handler that throws marks the run failed and lets pg-boss
   * retry it (after the last of `1 + retryLimit` attempts the run stays failed); a delivery whose run
   * is already completed is acknowledged without calling `handler`. A handler whose run was handed
   * to another worker meanwhile (this one was taken for dead) changes nothing when it returns.
   *
   * @example
   * await controlPlane.turnRequests.work(async (request) => {
   *   await runTurn(request.agentId, request.prompt);
   * });
   */
  async work(handler: TurnRequestHandler, options: TurnRequestWorkOptions = {}): Promise<string> {
    const agentId = this.consumer.agentFor(options.agentId);
    return this.consumer.startWorker(agentId, (job) => this.#deliver(job, handler));
  }

  async #deliver(job: PgBoss.Job<TurnRequest>, handler: TurnRequestHandler): Promise<void> {
    const request = job.data;
    // A run handed back has a new job: a late delivery of the old one (its id is the run's) claims nothing.
    const { rows } = await this.database.query<{ attempts: number }>(
      `UPDATE switchyard.schedule_runs
           SET status = 'running', attempts = attempts + 1, started_at = clock_timestamp(), error = NULL
           WHERE id = $1 AND status <> 'completed' AND coalesce(job_id, id) = $2
           RETURNING attempts`,
      [request.runId, job.id],
    );
    const claimed = rows[0];
    // Already completed (a duplicate delivery) or not in the ledger: acknowledge, run nothing.
    if (claimed === undefined) return;
    const attempt = claimed.attempts;
    if (attempt > this.options.retryLimit + 1) {
      await this.#settle(
        this.database,
        request.runId,
        attempt,
        'failed',
        this.lostDeliveryReason(attempt),
        job.id,
      );
      return;
    }
    try {
      await handler(request, { attempt, jobId: job.id });
    } catch (error) {
      // Rethrown (for pg-boss to retry) only while this attempt still owns the run.
      if (await this.#settle(this.database, request.runId, attempt, 'failed', errorText(error), job.id))
        throw error;
      return;
    }
    // A turn that held a call detached its run from this job: the turn's end settles it, not this.
    await this.#settle(this.database, request.runId, attempt, 'completed', null, job.id);
  }

  /**
   * Ends attempt `attempt` of a run, if it is still the running one (and, with `jobId`, that job
   * still carries it); true when it was.
   */
  async #settle(
    executor: SqlExecutor,
    runId: string,
    attempt: number,
    status: 'completed' | 'failed',
    error: string | null,
    jobId: string | undefined,
  ): Promise<boolean> {
    const { rows } = await executor.query(
      `UPDATE switchyard.schedule_runs
          SET status = $3, error = $4,
              completed_at = CASE WHEN $3 = 'completed' THEN clock_timestamp() ELSE completed_at END
        WHERE id = $1 AND status = 'running' AND attempts = $2
          AND ($5::uuid IS NULL OR coalesce(job_id, id) = $5) RETURNING 1`,
      [runId, attempt, status, error, jobId ?? null],
    );
    return rows.length > 0;
  }

  /**
   * Internal: detaches the run a schedule turn runs from its queue job, inside the caller's
   * transaction (the one recording the turn's first held call): the job is cancelled and the run
   * records a job id no job has, so the queue never delivers it again while the turn waits for an
   * answer. The turn's end settles the run (`settleDetached`).
   *
   * Contract: resolves undefined when detached (or already), or why not.
   */
  readonly detachUnit: DetachUnit = async (transaction, turn) => {
    if (turn.source !== 'schedule' || !UUID.test(turn.sourceId)) return undefined;
    const run = await this.#lockRun(transaction, turn.sourceId);
    const label = `schedule run ${turn.sourceId}`;
    if (run === undefined) return `${label} no longer exists`;
    if (run.attempts !== turn.attempt) return `${label} was taken over by attempt ${run.attempts}`;
    if (run.status !== 'running') return `${label} is ${run.status}`;
    await this.consumer.cancel(transaction, run.agent_id, run.job_id);
    await transaction.query('UPDATE switchyard.schedule_runs SET job_id = $2 WHERE id = $1', [
      turn.sourceId,
      randomUUID(),
    ]);
    return undefined;
  };

  /**
   * Internal: settles the run of a schedule turn that ran detached from its queue job, inside the
   * transaction recording the turn's end: completed when the turn finished (`completed`,
   * `incomplete`, `ended-by-tool`, `max-iterations`: running it again would most likely end the
   * same way), else handed back for its next attempt (or failed, out of
   * attempts). Only while the turn's attempt is still the run's running one.
   */
  readonly settleDetached: SettleDetachedUnit = async (transaction, turn, end) => {
    if (turn.source !== 'schedule' || !UUID.test(turn.sourceId)) return;
    if (isFinishedTurnEnd(end)) {
      await this.#settle(transaction, turn.sourceId, turn.attempt, 'completed', null, undefined);
      return;
    }
    const why = turnEndReason(end);
    if (turn.attempt > this.options.retryLimit) {
      await this.#settle(transaction, turn.sourceId, turn.attempt, 'failed', why, undefined);
      return;
    }
    await this.#requeue(transaction, turn, why);
  };

  /**
   * Internal: hands the run of an interrupted schedule turn (its worker stopped heartbeating) back to
   * its queue inside the caller's transaction, the one marking the turn interrupted: its job is
   * cancelled and a new one carries the next attempt (at once for the first retry, after the
   * configured delay and backoff for later ones), or, with no attempt left, the run fails with the
   * reason. Only while the turn's attempt is still the running one: anything else is `settled`.
   */
  readonly handBackInterrupted: HandBackUnit = async (transaction, turn) => {
    if (turn.source !== 'schedule' || !UUID.test(turn.sourceId)) return undefined;
    const runId = turn.sourceId;
    const unit = { unit: 'schedule-run' as const, unitId: runId };
    const label = `schedule run ${runId}`;
    const run = await this.#lockRun(transaction, runId);
    if (run === undefined) return { ...unit, outcome: 'settled', description: `${label} no longer exists` };
    if (run.attempts !== turn.attempt) {
      return {
        ...unit,
        outcome: 'settled',
        description: `${label} not handed back: attempt ${run.attempts} had already taken it over`,
      };
    }
    if (run.status !== 'running') {
      return { ...unit, outcome: 'settled', description: `${label} not handed back: it is ${run.status}` };
    }
    await this.consumer.cancel(transaction, run.agent_id, run.job_id);
    if (turn.attempt > this.options.retryLimit) {
      const reason = this.lastAttemptReason(turn.attempt);
      await transaction.query(
        "UPDATE switchyard.schedule_runs SET status = 'failed', error = $2 WHERE id = $1",
        [runId, reason],
      );
      return { ...unit, outcome: 'failed', description: `${label} failed: ${reason}` };
    }
    return {
      ...unit,
      ...(await this.#requeue(
        transaction,
        turn,
        `the worker running attempt ${turn.attempt} stopped (its heartbeat went stale)`,
      )),
    };
  };

  /**
   * Locks a schedule run for the rest of the transaction and reads what deciding its fate needs: its
   * status, attempt, current job (its own id before its first job) and agent. Undefined when gone.
   */
  async #lockRun(transaction: SqlExecutor, runId: string): Promise<LockedRun | undefined> {
    const { rows } = await transaction.query<LockedRun>(
      `SELECT status, attempts, coalesce(job_id, id) AS job_id, agent_id FROM switchyard.schedule_runs
        WHERE id = $1 FOR UPDATE`,
      [runId],
    );
    return rows[0];
  }

  /**
   * Puts a running run back in its queue as its next attempt (a new job; the delay and retries of a
   * hand-back), recording `why` as its error.
   */
  async #requeue(
    transaction: SqlExecutor,
    turn: InterruptedTurnFacts,
    why: string,
  ): Promise<{ outcome: 'requeued' | 'settled'; retryAt?: string; description: string }> {
    const runId = turn.sourceId;
    const label = `schedule run ${runId}`;
    const { rows } = await transaction.query<{
      agent_id: string;
      schedule_id: string;
      slot: Date;
      idempotency_key: string;
      name: string;
      prompt: string;
    }>(
      `SELECT r.agent_id, r.schedule_id, r.slot, r.idempotency_key, s.name, s.prompt
         FROM switchyard.schedule_runs r JOIN switchyard.schedules s ON s.id = r.schedule_id
        WHERE r.id = $1 AND r.status = 'running' AND r.attempts = $2`,
      [runId, turn.attempt],
    );
    const run = rows[0];
    if (run === undefined)
      return {
        outcome: 'settled',
        description: `${label} not handed back: it is not running attempt ${turn.attempt}`,
      };
    const { description, ...job } = this.handBackOf(turn.attempt);
    const jobId = randomUUID();
    const request: TurnRequest = {
      runId,
      scheduleId: run.schedule_id,
      scheduleName: run.name,
      agentId: run.agent_id,
      prompt: run.prompt,
      slot: new Date(run.slot).toISOString(),
      idempotencyKey: run.idempotency_key,
    };
    await this.consumer.insert(transaction, [
      {
        id: jobId,
        agentId: run.agent_id,
        data: request,
        ...job,
      },
    ]);
    const { rows: times } = await transaction.query<{ at: Date }>(
      `UPDATE switchyard.schedule_runs SET status = 'enqueued', job_id = $2, error = $3 WHERE id = $1
       RETURNING clock_timestamp() + $4 * interval '1 second' AS at`,
      [runId, jobId, why, job.startAfterSeconds],
    );
    return {
      outcome: 'requeued',
      retryAt: new Date(times[0]?.at ?? Date.now()).toISOString(),
      description: `${label} ${description}`,
    };
  }
}
