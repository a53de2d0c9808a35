import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { ConsumedQueue } from '../queues/consumed-queue';
import { isFinishedTurnEnd, turnEndReason } from '../turns/detached-turn-end';
import type {
  DetachUnit,
  HandBackUnit,
  InterruptedTurnFacts,
  SettleDetachedUnit,
} from '../turns/turn-unit-hooks';
import { errorText } from '../values/error-text';
import { claimWorkUnit } from './claim-work-unit';
import type { EnqueueWorkTurn } from './dispatch-workflow';
import { InterruptionWatch } from './interruption-watch';
import type { QueuedWork } from './queued-work';
import {
  failUnit,
  settleFinishedUnit,
  submitJobResult,
  submitTaskResult,
  type UnitStorage,
} from './unit-results';
import type { SubmitResultOutcome, SubmitResultRequest, WorkTurnHandler, WorkTurnOutcome } from './work-turn';
import {
  failLockedUnit,
  isUuid,
  lockWorkUnit,
  markUnitQueued,
  recordUnitJob,
  unitIdOf,
  unitOfTurn,
} from './work-unit-rows';

/** How work turns (workflow tasks, background jobs) are delivered. */
export interface WorkTurnOptions {
  /** How long a delivery may run before it counts as lost and is retried, in seconds. Default 900. */
  expireInSeconds?: number;
  /** Retries after the first delivery; after the last the task or job fails. Default 2. */
  retryLimit?: number;
  /**
   * Seconds before a retry after a failed delivery. Default 5. A unit whose worker died goes back at
   * once for its first retry and waits this long before each later one.
   */
  retryDelaySeconds?: number;
  /** Double the retry delay with each further retry. Default false. */
  retryBackoff?: boolean;
  /** How often an idle consumer polls, in seconds (at least 0.5). Default 2. */
  pollingIntervalSeconds?: number;
  /**
   * How often a running turn checks whether its workflow or job was cancelled, or its unit was
   * handed to another worker (this one was taken for dead), in ms. Default 1000.
   */
  cancelCheckIntervalMs?: number;
}

/** What `work` takes. */
export interface WorkTurnWorkOptions {
  /** The agent whose work turns to consume. Default: the control plane's `agentId`. */
  agentId?: string;
  /** How many turns this process runs at once (one pg-boss worker each). Default 2. */
  concurrency?: number;
}

/** The pg-boss queue of one agent's work turns. */
export function workTurnQueueName(agentId: string): string {
  return `switchyard.work-turns.${agentId}`;
}

/**
 * Work turns: the sub-agent turns of workflow tasks and background jobs, queued by the control plane
 * and consumed by the worker with `work(handler)`; task turns hand their results to `submitResult`.
 *
 * Contract: delivery is at-least-once (a handler may run again after a crash); a task stores one
 * result (`UNIQUE (workflow_id, task_id)`), a job one result, and only from the attempt currently
 * running it. A delivery of a finished, failed or cancelled task or job, or of a job that no longer
 * carries its unit (it was handed back with a new one), is acknowledged without calling the handler.
 * A running turn's `signal` fires when its workflow or job is cancelled, or when its unit was handed
 * to another worker because this one was taken for dead.
 */
export class WorkTurnQueue extends ConsumedQueue<QueuedWork, Required<WorkTurnOptions>> {
  readonly #maxValueBytes: number;
  readonly #onError: (error: unknown) => void;

  /** Use `controlPlane.workTurns` rather than constructing one. */
  constructor(
    boss: PgBoss,
    database: Database,
    options: Required<WorkTurnOptions>,
    defaultAgentId: string | undefined,
    maxValueBytes = 1024 * 1024,
    onError: (error: unknown) => void = () => {},
  ) {
    super(boss, options, { database, queueName: workTurnQueueName, contents: 'work turns', defaultAgentId });
    this.#onError = onError;
    this.#maxValueBytes = maxValueBytes;
  }

  /**
   * Internal: enqueues one work turn inside the caller's transaction (the queue must exist) and
   * records its job as the unit's current one.
   */
  readonly enqueue: EnqueueWorkTurn = async (transaction, agentId, data, options = {}) => {
    const id = randomUUID();
    await this.consumer.insert(transaction, [{ id, agentId, data, ...options }]);
    await recordUnitJob(transaction, data, id);
  };

  /**
   * Starts consuming the agent's work turns, `concurrency` at a time. Returns the pg-boss worker ids.
   *
   * Contract: throws `ControlPlaneInputError` on `agentId` when no agent is named. After the handler
   * returns, a task without an accepted result (or a job with a result schema and none) fails with
   * "ended without an accepted submit_result"; a job without a schema stores the turn's `output`. A
   * handler that throws is retried; after the last retry the task or job fails with its message. A
   * turn whose unit was handed to another worker meanwhile changes nothing when it ends.
   *
   * @example
   * await controlPlane.workTurns.work(async (turn, { signal }) => runTaskTurn(turn, signal));
   */
  async work(handler: WorkTurnHandler, options: WorkTurnWorkOptions = {}): Promise<string[]> {
    const agentId = this.consumer.agentFor(options.agentId);
    const concurrency = options.concurrency ?? 2;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ControlPlaneInputError(
        'concurrency',
        `must be a positive integer, got ${String(concurrency)}`,
      );
    }
    const ids: string[] = [];
    // pg-boss 10 runs one batch per worker at a time: concurrency means several workers.
    for (let index = 0; index < concurrency; index += 1) {
      ids.push(await this.consumer.startWorker(agentId, (job) => this.#deliver(job, handler)));
    }
    return ids;
  }

  async #deliver(job: PgBoss.Job<QueuedWork>, handler: WorkTurnHandler): Promise<void> {
    const work = job.data;
    const claimed = await claimWorkUnit(this.database, work, job.id);
    // Finished, failed or cancelled meanwhile, a duplicate delivery, or a job that no longer carries
    // its unit: acknowledge, run nothing.
    if (claimed === undefined) return;
    const { attempt } = claimed;
    if (attempt > this.options.retryLimit + 1) {
      await this.#fail(work, attempt, this.lostDeliveryReason(attempt));
      return;
    }
    const watch = new InterruptionWatch(
      this.database,
      work,
      attempt,
      this.options.cancelCheckIntervalMs,
      this.#onError,
    );
    let outcome: WorkTurnOutcome | undefined;
    try {
      outcome = (await handler(claimed.turn, { attempt, signal: watch.signal })) ?? undefined;
    } catch (error) {
      if (watch.signal.aborted) return;
      // The last delivery fails the work for good; earlier ones go back to pg-boss for a retry.
      if (attempt > this.options.retryLimit) {
        await this.#fail(work, attempt, `the turn failed: ${errorText(error)}`, job.id);
        return;
      }
      throw error;
    } finally {
      watch.stop();
    }
    if (watch.signal.aborted) return;
    // A turn that held a call detached its unit from this job: the turn's end settles it, not this.
    await this.database.transaction((transaction) =>
      settleFinishedUnit(
        transaction,
        this.#storage,
        work,
        claimed.turn.resultSchema === null,
        attempt,
        outcome?.output,
        job.id,
      ),
    );
  }

  /**
   * Fails a task or job that attempt `attempt` is still running (a stored result, a cancellation, or
   * another attempt having taken it over wins); with `jobId`, only while that job carries the unit.
   */
  async #fail(work: QueuedWork, attempt: number, reason: string, jobId?: string): Promise<void> {
    await this.database.transaction((transaction) =>
      failUnit(transaction, this.#storage, work, attempt, reason, jobId),
    );
  }

  /** What the unit-result functions need of this queue. */
  get #storage(): UnitStorage {
    return { enqueue: this.enqueue, maxValueBytes: this.#maxValueBytes };
  }

  /**
   * Validates a task turn's result against the stored result schema, server side, and stores it
   * once. Implements `@switchyard/tools-workflow`'s `TaskResultService`.
   *
   * Contract: only finite JSON is stored, exactly as validated (its JSON round trip: `1e999`, which
   * arrives as Infinity, is refused, not stored as null). Only a running task or job takes a result
   * (not one pending on its dependencies, queued, cancelled or failed), and with `attempt`, only
   * while that attempt is its current one. An invalid value is `{ status: 'rejected', problems }`
   * (nothing stored); a second valid submission is `{ status: 'already-stored' }`; a task or job that
   * takes no result now is `{ status: 'closed', reason }`. Storing a task's result completes it and
   * starts the tasks that were waiting for it. Throws `ControlPlaneInputError` for an unknown target
   * or a malformed `attempt`.
   */
  async submitResult(request: SubmitResultRequest): Promise<SubmitResultOutcome> {
    const { target, attempt } = request;
    if (attempt !== undefined && (!Number.isSafeInteger(attempt) || attempt < 1)) {
      throw new ControlPlaneInputError('attempt', `must be an integer >= 1, got ${String(attempt)}`);
    }
    if (target?.kind === 'background-job') {
      if (typeof target.jobId !== 'string' || !isUuid(target.jobId)) {
        throw new ControlPlaneInputError('target.jobId', 'must be a job id (a UUID)');
      }
      return this.database.transaction((transaction) =>
        submitJobResult(transaction, this.#storage, target.jobId, request.result, attempt),
      );
    }
    if (target?.kind !== 'workflow-task') {
      throw new ControlPlaneInputError('target', "must be a 'workflow-task' or 'background-job' target");
    }
    if (typeof target.workflowId !== 'string' || !isUuid(target.workflowId)) {
      throw new ControlPlaneInputError('target.workflowId', 'must be a workflow id (a UUID)');
    }
    return this.database.transaction((transaction) =>
      submitTaskResult(transaction, this.#storage, target, request.result, attempt),
    );
  }

  /**
   * Internal: detaches the unit a turn runs from its queue job, inside the caller's transaction (the
   * one recording the turn's first held call): the job is cancelled and the unit records a job id no
   * job has, so the queue never delivers it again (neither on expiry nor as a retry) while the turn
   * waits for an answer, however long. The turn's end settles the unit (`settleDetached`).
   *
   * Contract: resolves undefined when detached (or already), or why not: the turn's attempt is no
   * longer the unit's running one (cancelled, failed, handed to another attempt).
   */
  readonly detachUnit: DetachUnit = async (transaction, turn) => {
    const work = unitOfTurn(turn);
    if (work === undefined) return undefined;
    const unit = await lockWorkUnit(transaction, work, turn.attempt);
    if (unit.settled !== undefined) return `${unit.label} ${unit.settled}`;
    if (unit.jobId !== null) await this.consumer.cancel(transaction, unit.agentId, unit.jobId);
    await recordUnitJob(transaction, work, randomUUID());
    return undefined;
  };

  /**
   * Internal: settles the unit of a turn that ran detached from its queue job, inside the transaction
   * recording the turn's end, as the queue's consumer settles a delivered one: a finished turn
   * (`completed`, `incomplete`, `ended-by-tool`, `max-iterations`) without an accepted result fails its task or job,
   * or stores a schema-less job's text; any other end hands the unit back for its next attempt (or
   * fails it, out of attempts). Only while the turn's attempt is still the unit's running one.
   */
  readonly settleDetached: SettleDetachedUnit = async (transaction, turn, end) => {
    const work = unitOfTurn(turn);
    if (work === undefined) return;
    // Finished without an accepted result: the unit fails (a schema-less job stores the text).
    if (isFinishedTurnEnd(end)) {
      let noResultSchema = false;
      if (work.kind === 'background-job') {
        const { rows } = await transaction.query<{ payload: { resultSchema?: unknown } }>(
          'SELECT payload FROM switchyard.background_jobs WHERE id = $1',
          [work.jobId],
        );
        noResultSchema = (rows[0]?.payload.resultSchema ?? null) === null;
      }
      await settleFinishedUnit(
        transaction,
        this.#storage,
        work,
        noResultSchema,
        turn.attempt,
        end.output,
        undefined,
      );
      return;
    }
    const why = turnEndReason(end);
    if (turn.attempt > this.options.retryLimit) {
      await failUnit(
        transaction,
        this.#storage,
        work,
        turn.attempt,
        `${why} (the last of ${this.options.retryLimit + 1} attempts)`,
      );
      return;
    }
    const requeued =
      work.kind === 'background-job'
        ? await transaction.query<{ agent_id: string }>(
            `UPDATE switchyard.background_jobs SET status = 'queued', updated_at = now()
              WHERE id = $1 AND status = 'running' AND attempts = $2 RETURNING agent_id`,
            [work.jobId, turn.attempt],
          )
        : await transaction.query<{ agent_id: string }>(
            `UPDATE switchyard.workflow_tasks t SET status = 'queued' FROM switchyard.workflows w
              WHERE t.workflow_id = $1 AND t.task_id = $2 AND w.id = t.workflow_id AND w.status = 'running'
                AND t.status = 'running' AND t.attempts = $3 RETURNING w.agent_id`,
            [work.workflowId, work.taskId, turn.attempt],
          );
    const agentId = requeued.rows[0]?.agent_id;
    if (agentId !== undefined) await this.#requeue(transaction, agentId, work, turn);
  };

  /**
   * Internal: hands the unit of an interrupted turn (its worker stopped heartbeating) back to its
   * queue inside the caller's transaction, the one marking the turn interrupted: its job is
   * cancelled, and a new one carries the next attempt (at once for the first retry, after the
   * configured delay and backoff for later ones), or, with no attempt left, the task or job fails
   * with the reason (a task's dependants fail with it). Only while the turn's attempt is still the
   * running one: anything else (ended, cancelled, taken over) is `settled`.
   */
  readonly handBackInterrupted: HandBackUnit = async (transaction, turn) => {
    const work = unitOfTurn(turn);
    if (work === undefined) return undefined;
    const handBack = { unit: work.kind, unitId: unitIdOf(work) };
    const unit = await lockWorkUnit(transaction, work, turn.attempt);
    if (unit.settled !== undefined) {
      return { ...handBack, outcome: 'settled', description: `${unit.label} ${unit.settled}` };
    }
    if (unit.jobId !== null) await this.consumer.cancel(transaction, unit.agentId, unit.jobId);
    if (turn.attempt > this.options.retryLimit) {
      const reason = this.lastAttemptReason(turn.attempt);
      await failLockedUnit(transaction, work, reason, this.enqueue);
      return { ...handBack, outcome: 'failed', description: `${unit.label} failed: ${reason}` };
    }
    await markUnitQueued(transaction, work);
    const next = await this.#requeue(transaction, unit.agentId, work, turn);
    return { ...handBack, outcome: 'requeued', ...next, description: `${unit.label} ${next.description}` };
  };

  /** Enqueues the unit's next attempt with the hand-back delay and the retries it has left. */
  async #requeue(
    transaction: SqlExecutor,
    agentId: string,
    data: QueuedWork,
    turn: InterruptedTurnFacts,
  ): Promise<{ retryAt: string; description: string }> {
    const { description, ...job } = this.handBackOf(turn.attempt);
    await this.enqueue(transaction, agentId, data, job);
    const { rows } = await transaction.query<{ at: Date }>(
      "SELECT clock_timestamp() + $1 * interval '1 second' AS at",
      [job.startAfterSeconds],
    );
    return { retryAt: new Date(rows[0]?.at ?? Date.now()).toISOString(), description };
  }
}
