import { randomUUID } from 'node:crypto';
import type { JSONSchemaObject } from '@switchyard/core';
import type PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { handBackDelaySeconds, QueueConsumer, retriesLeftAfter } from '../queues/queue-consumer';
import { isFinishedTurnEnd, turnEndReason } from '../turns/detached-turn-end';
import type { DetachedTurnEnd, InterruptedTurnFacts, UnitHandBack } from '../turns/turn-unit-hooks';
import { errorText } from '../values/error-text';
import { checkResultSchema } from './check-result-schema';
import { TASK_REFERENCE } from './check-workflow-spec';
import { dispatchWorkflow, type EnqueueWorkTurn } from './dispatch-workflow';
import { InterruptionWatch } from './interruption-watch';
import type { QueuedWork } from './queued-work';
import {
  failUnit,
  settleFinishedUnit,
  submitJobResult,
  submitTaskResult,
  type UnitStorage,
} from './unit-results';
import type {
  SubmitResultOutcome,
  SubmitResultRequest,
  WorkTurn,
  WorkTurnHandler,
  WorkTurnOutcome,
} from './work-turn';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The pg-boss queue of one agent's work turns. */
export function workTurnQueueName(agentId: string): string {
  return `switchyard.work-turns.${agentId}`;
}

/**
 * jsonb does not keep key order, and strict mode compares the schema it is sent with its canonical
 * projection key by key: so a stored schema is put back in canonical order before a turn sees it.
 */
function canonical(schema: JSONSchemaObject): JSONSchemaObject;
function canonical(schema: JSONSchemaObject | null): JSONSchemaObject | null;
function canonical(schema: JSONSchemaObject | null): JSONSchemaObject | null {
  if (schema === null) return null;
  const checked = checkResultSchema(schema);
  return checked.ok ? checked.schema : schema;
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
export class WorkTurnQueue {
  readonly #database: Database;
  readonly #options: Required<WorkTurnOptions>;
  readonly #consumer: QueueConsumer<QueuedWork>;
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
    this.#database = database;
    this.#onError = onError;
    this.#options = options;
    this.#maxValueBytes = maxValueBytes;
    this.#consumer = new QueueConsumer(boss, {
      database,
      queueName: workTurnQueueName,
      contents: 'work turns',
      policy: options,
      defaultAgentId,
    });
  }

  /** Creates the agent's queue once per process (idempotent in the database too). */
  ensureQueue(agentId: string): Promise<void> {
    return this.#consumer.ensureQueue(agentId);
  }

  /**
   * Internal: enqueues one work turn inside the caller's transaction (the queue must exist) and
   * records its job as the unit's current one.
   */
  readonly enqueue: EnqueueWorkTurn = async (transaction, agentId, data, options = {}) => {
    const id = randomUUID();
    await this.#consumer.insert(transaction, [{ id, agentId, data, ...options }]);
    if (data.kind === 'workflow-task') {
      await transaction.query(
        'UPDATE switchyard.workflow_tasks SET job_id = $3 WHERE workflow_id = $1 AND task_id = $2',
        [data.workflowId, data.taskId, id],
      );
    } else {
      await transaction.query('UPDATE switchyard.background_jobs SET job_id = $2 WHERE id = $1', [
        data.jobId,
        id,
      ]);
    }
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
    const agentId = this.#consumer.agentFor(options.agentId);
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
      ids.push(await this.#consumer.startWorker(agentId, (job) => this.#deliver(job, handler)));
    }
    return ids;
  }

  /**
   * Marks the unit running as its next attempt, when `jobId` still carries it (a unit handed back
   * has a new job: a late delivery of the old one claims nothing).
   */
  async #claim(work: QueuedWork, jobId: string): Promise<{ turn: WorkTurn; attempt: number } | undefined> {
    if (work.kind === 'background-job') {
      const { rows } = await this.#database.query<{
        agent_id: string;
        payload: { prompt: string; resultSchema: JSONSchemaObject | null };
        attempts: number;
        trace_parent: string | null;
      }>(
        `UPDATE switchyard.background_jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
         WHERE id = $1 AND status IN ('queued', 'running') AND (job_id IS NULL OR job_id = $2)
         RETURNING agent_id, payload, attempts, trace_parent`,
        [work.jobId, jobId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      return {
        attempt: row.attempts,
        turn: {
          kind: 'background-job',
          agentId: row.agent_id,
          jobId: work.jobId,
          prompt: row.payload.prompt,
          resultSchema: canonical(row.payload.resultSchema ?? null),
          ...(row.trace_parent === null ? {} : { traceParent: row.trace_parent }),
        },
      };
    }
    return this.#database.transaction(async (transaction) => {
      const { rows } = await transaction.query<{
        agent_id: string;
        name: string;
        prompt: string;
        result_schema: JSONSchemaObject;
        depends_on: string[];
        attempts: number;
        trace_parent: string | null;
      }>(
        `UPDATE switchyard.workflow_tasks t
            SET status = 'running', attempts = t.attempts + 1, started_at = coalesce(t.started_at, clock_timestamp())
           FROM switchyard.workflows w
          WHERE t.workflow_id = $1 AND t.task_id = $2 AND w.id = t.workflow_id
            AND w.status = 'running' AND t.status IN ('queued', 'running')
            AND (t.job_id IS NULL OR t.job_id = $3)
          RETURNING w.agent_id, w.name, t.prompt, t.result_schema, t.depends_on, t.attempts, w.trace_parent`,
        [work.workflowId, work.taskId, jobId],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const { rows: results } = await transaction.query<{ task_id: string; result: unknown }>(
        'SELECT task_id, result FROM switchyard.task_results WHERE workflow_id = $1 AND task_id = ANY($2::text[])',
        [work.workflowId, row.depends_on],
      );
      const byTask = new Map(results.map((result) => [result.task_id, result.result]));
      const prompt = row.prompt.replace(TASK_REFERENCE, (whole, id: string) =>
        byTask.has(id) ? JSON.stringify(byTask.get(id)) : whole,
      );
      return {
        attempt: row.attempts,
        turn: {
          kind: 'workflow-task',
          agentId: row.agent_id,
          workflowId: work.workflowId,
          workflowName: row.name,
          taskId: work.taskId,
          prompt,
          resultSchema: canonical(row.result_schema),
          ...(row.trace_parent === null ? {} : { traceParent: row.trace_parent }),
        },
      };
    });
  }

  async #deliver(job: PgBoss.Job<QueuedWork>, handler: WorkTurnHandler): Promise<void> {
    const work = job.data;
    const claimed = await this.#claim(work, job.id);
    // Finished, failed or cancelled meanwhile, a duplicate delivery, or a job that no longer carries
    // its unit: acknowledge, run nothing.
    if (claimed === undefined) return;
    const { attempt } = claimed;
    if (attempt > this.#options.retryLimit + 1) {
      // Only a lost delivery (its worker died unrecorded, the job expired) gets here.
      await this.#fail(
        work,
        attempt,
        `attempt ${attempt} would exceed the ${this.#options.retryLimit + 1} attempts allowed (retryLimit ${this.#options.retryLimit}): an earlier attempt's worker stopped`,
      );
      return;
    }
    const watch = new InterruptionWatch(
      this.#database,
      work,
      attempt,
      this.#options.cancelCheckIntervalMs,
      this.#onError,
    );
    let outcome: WorkTurnOutcome | undefined;
    try {
      outcome = (await handler(claimed.turn, { attempt, signal: watch.signal })) ?? undefined;
    } catch (error) {
      if (watch.signal.aborted) return;
      // The last delivery fails the work for good; earlier ones go back to pg-boss for a retry.
      if (attempt > this.#options.retryLimit) {
        await this.#fail(work, attempt, `the turn failed: ${errorText(error)}`, job.id);
        return;
      }
      throw error;
    } finally {
      watch.stop();
    }
    if (watch.signal.aborted) return;
    // A turn that held a call detached its unit from this job: the turn's end settles it, not this.
    await this.#database.transaction((transaction) =>
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
    await this.#database.transaction((transaction) =>
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
      if (typeof target.jobId !== 'string' || !UUID.test(target.jobId)) {
        throw new ControlPlaneInputError('target.jobId', 'must be a job id (a UUID)');
      }
      return this.#database.transaction((transaction) =>
        submitJobResult(transaction, this.#storage, target.jobId, request.result, attempt),
      );
    }
    if (target?.kind !== 'workflow-task') {
      throw new ControlPlaneInputError('target', "must be a 'workflow-task' or 'background-job' target");
    }
    if (typeof target.workflowId !== 'string' || !UUID.test(target.workflowId)) {
      throw new ControlPlaneInputError('target.workflowId', 'must be a workflow id (a UUID)');
    }
    return this.#database.transaction((transaction) =>
      submitTaskResult(transaction, this.#storage, target, request.result, attempt),
    );
  }

  /** The unit a turn record names (`source`, `sourceId`), or undefined when it names none of this queue's. */
  #unitOf(turn: Pick<InterruptedTurnFacts, 'source' | 'sourceId'>): QueuedWork | undefined {
    if (turn.source === 'job')
      return UUID.test(turn.sourceId) ? { kind: 'background-job', jobId: turn.sourceId } : undefined;
    if (turn.source !== 'task') return undefined;
    const slash = turn.sourceId.indexOf('/');
    const workflowId = turn.sourceId.slice(0, slash);
    if (slash === -1 || !UUID.test(workflowId)) return undefined;
    return { kind: 'workflow-task', workflowId, taskId: turn.sourceId.slice(slash + 1) };
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
  async detachUnit(transaction: SqlExecutor, turn: InterruptedTurnFacts): Promise<string | undefined> {
    const work = this.#unitOf(turn);
    if (work === undefined) return undefined;
    if (work.kind === 'background-job') {
      const { rows } = await transaction.query<{
        status: string;
        attempts: number;
        job_id: string | null;
        agent_id: string;
      }>(
        'SELECT status, attempts, job_id, agent_id FROM switchyard.background_jobs WHERE id = $1 FOR UPDATE',
        [work.jobId],
      );
      const job = rows[0];
      const closed =
        job === undefined ? 'it no longer exists' : settledReason(job.status, job.attempts, turn.attempt);
      if (closed !== undefined || job === undefined) return `job ${work.jobId} ${closed}`;
      if (job.job_id !== null) await this.#consumer.cancel(transaction, job.agent_id, job.job_id);
      await transaction.query('UPDATE switchyard.background_jobs SET job_id = $2 WHERE id = $1', [
        work.jobId,
        randomUUID(),
      ]);
      return undefined;
    }
    const label = `task ${work.workflowId}/${work.taskId}`;
    const { rows: workflows } = await transaction.query<{ status: string; agent_id: string }>(
      'SELECT status, agent_id FROM switchyard.workflows WHERE id = $1 FOR UPDATE',
      [work.workflowId],
    );
    const { rows: tasks } = await transaction.query<{
      status: string;
      attempts: number;
      job_id: string | null;
    }>(
      'SELECT status, attempts, job_id FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = $2 FOR UPDATE',
      [work.workflowId, work.taskId],
    );
    const workflow = workflows[0];
    const task = tasks[0];
    if (workflow === undefined || task === undefined) return `${label} no longer exists`;
    const closed = settledReason(
      workflow.status === 'running' ? task.status : `${task.status} (its workflow is ${workflow.status})`,
      task.attempts,
      turn.attempt,
    );
    if (closed !== undefined) return `${label} ${closed}`;
    if (task.job_id !== null) await this.#consumer.cancel(transaction, workflow.agent_id, task.job_id);
    await transaction.query(
      'UPDATE switchyard.workflow_tasks SET job_id = $3 WHERE workflow_id = $1 AND task_id = $2',
      [work.workflowId, work.taskId, randomUUID()],
    );
    return undefined;
  }

  /**
   * Internal: settles the unit of a turn that ran detached from its queue job, inside the transaction
   * recording the turn's end, as the queue's consumer settles a delivered one: a finished turn
   * (`completed`, `incomplete`, `ended-by-tool`, `max-iterations`) without an accepted result fails its task or job,
   * or stores a schema-less job's text; any other end hands the unit back for its next attempt (or
   * fails it, out of attempts). Only while the turn's attempt is still the unit's running one.
   */
  async settleDetached(
    transaction: SqlExecutor,
    turn: InterruptedTurnFacts,
    end: DetachedTurnEnd,
  ): Promise<void> {
    const work = this.#unitOf(turn);
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
    if (turn.attempt > this.#options.retryLimit) {
      await failUnit(
        transaction,
        this.#storage,
        work,
        turn.attempt,
        `${why} (the last of ${this.#options.retryLimit + 1} attempts)`,
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
  }

  /**
   * Internal: hands the unit of an interrupted turn (its worker stopped heartbeating) back to its
   * queue inside the caller's transaction, the one marking the turn interrupted: its job is
   * cancelled, and a new one carries the next attempt (at once for the first retry, after the
   * configured delay and backoff for later ones), or, with no attempt left, the task or job fails
   * with the reason (a task's dependants fail with it). Only while the turn's attempt is still the
   * running one: anything else (ended, cancelled, taken over) is `settled`.
   */
  async handBackInterrupted(
    transaction: SqlExecutor,
    turn: InterruptedTurnFacts,
  ): Promise<UnitHandBack | undefined> {
    if (turn.source === 'job') {
      if (!UUID.test(turn.sourceId)) return undefined;
      return this.#handBackJob(transaction, turn.sourceId, turn);
    }
    if (turn.source !== 'task') return undefined;
    const slash = turn.sourceId.indexOf('/');
    const workflowId = turn.sourceId.slice(0, slash);
    if (slash === -1 || !UUID.test(workflowId)) return undefined;
    return this.#handBackTask(transaction, workflowId, turn.sourceId.slice(slash + 1), turn);
  }

  async #handBackTask(
    transaction: SqlExecutor,
    workflowId: string,
    taskId: string,
    turn: InterruptedTurnFacts,
  ): Promise<UnitHandBack> {
    const unit = { unit: 'workflow-task' as const, unitId: `${workflowId}/${taskId}` };
    const label = `task ${unit.unitId}`;
    const { rows: workflows } = await transaction.query<{ status: string; agent_id: string }>(
      'SELECT status, agent_id FROM switchyard.workflows WHERE id = $1 FOR UPDATE',
      [workflowId],
    );
    const { rows: tasks } = await transaction.query<{
      status: string;
      attempts: number;
      job_id: string | null;
    }>(
      `SELECT status, attempts, job_id FROM switchyard.workflow_tasks
       WHERE workflow_id = $1 AND task_id = $2 FOR UPDATE`,
      [workflowId, taskId],
    );
    const workflow = workflows[0];
    const task = tasks[0];
    if (workflow === undefined || task === undefined) {
      return { ...unit, outcome: 'settled', description: `${label} no longer exists` };
    }
    const settled = settledReason(
      workflow.status === 'running' ? task.status : `${task.status} (its workflow is ${workflow.status})`,
      task.attempts,
      turn.attempt,
    );
    if (settled !== undefined) return { ...unit, outcome: 'settled', description: `${label} ${settled}` };
    const agentId = workflow.agent_id;
    if (task.job_id !== null) await this.#consumer.cancel(transaction, agentId, task.job_id);
    if (turn.attempt > this.#options.retryLimit) {
      const reason = this.#lastAttemptReason(turn.attempt);
      await transaction.query(
        `UPDATE switchyard.workflow_tasks SET status = 'failed', error = $3, finished_at = clock_timestamp()
         WHERE workflow_id = $1 AND task_id = $2`,
        [workflowId, taskId, reason],
      );
      await dispatchWorkflow(transaction, workflowId, this.enqueue);
      return { ...unit, outcome: 'failed', description: `${label} failed: ${reason}` };
    }
    await transaction.query(
      "UPDATE switchyard.workflow_tasks SET status = 'queued' WHERE workflow_id = $1 AND task_id = $2",
      [workflowId, taskId],
    );
    const next = await this.#requeue(
      transaction,
      agentId,
      { kind: 'workflow-task', workflowId, taskId },
      turn,
    );
    return { ...unit, outcome: 'requeued', ...next, description: `${label} ${next.description}` };
  }

  async #handBackJob(
    transaction: SqlExecutor,
    jobId: string,
    turn: InterruptedTurnFacts,
  ): Promise<UnitHandBack> {
    const unit = { unit: 'background-job' as const, unitId: jobId };
    const label = `job ${jobId}`;
    const { rows } = await transaction.query<{
      status: string;
      attempts: number;
      job_id: string | null;
      agent_id: string;
    }>('SELECT status, attempts, job_id, agent_id FROM switchyard.background_jobs WHERE id = $1 FOR UPDATE', [
      jobId,
    ]);
    const job = rows[0];
    if (job === undefined) return { ...unit, outcome: 'settled', description: `${label} no longer exists` };
    const settled = settledReason(job.status, job.attempts, turn.attempt);
    if (settled !== undefined) return { ...unit, outcome: 'settled', description: `${label} ${settled}` };
    if (job.job_id !== null) await this.#consumer.cancel(transaction, job.agent_id, job.job_id);
    if (turn.attempt > this.#options.retryLimit) {
      const reason = this.#lastAttemptReason(turn.attempt);
      await transaction.query(
        `UPDATE switchyard.background_jobs SET status = 'failed', error = $2, updated_at = now(), finished_at = now()
         WHERE id = $1`,
        [jobId, reason],
      );
      return { ...unit, outcome: 'failed', description: `${label} failed: ${reason}` };
    }
    await transaction.query(
      "UPDATE switchyard.background_jobs SET status = 'queued', updated_at = now() WHERE id = $1",
      [jobId],
    );
    const next = await this.#requeue(transaction, job.agent_id, { kind: 'background-job', jobId }, turn);
    return { ...unit, outcome: 'requeued', ...next, description: `${label} ${next.description}` };
  }

  #lastAttemptReason(attempt: number): string {
    const allowed = this.#options.retryLimit + 1;
    return `the worker running attempt ${attempt} stopped (its heartbeat went stale), and that was the last of the ${allowed} attempts allowed (retryLimit ${this.#options.retryLimit})`;
  }

  /** Enqueues the unit's next attempt with the hand-back delay and the retries it has left. */
  async #requeue(
    transaction: SqlExecutor,
    agentId: string,
    data: QueuedWork,
    turn: InterruptedTurnFacts,
  ): Promise<{ retryAt: string; description: string }> {
    const delay = handBackDelaySeconds(this.#options, turn.attempt);
    await this.enqueue(transaction, agentId, data, {
      startAfterSeconds: delay,
      retryLimit: retriesLeftAfter(this.#options, turn.attempt),
    });
    const { rows } = await transaction.query<{ at: Date }>(
      "SELECT clock_timestamp() + $1 * interval '1 second' AS at",
      [delay],
    );
    return {
      retryAt: new Date(rows[0]?.at ?? Date.now()).toISOString(),
      description: `handed back to its queue: attempt ${turn.attempt + 1} starts ${delay === 0 ? 'at once' : `in ${delay} s`} on any live worker`,
    };
  }

  /** Stops every consumer this process started and waits for running handlers to finish. */
  async stop(): Promise<void> {
    await this.#consumer.stop();
  }
}

/** Why a unit is not handed back (it ended, or another attempt took it), or undefined to hand it back. */
function settledReason(status: string, attempts: number, attempt: number): string | undefined {
  if (attempts !== attempt) return `not handed back: attempt ${attempts} had already taken it over`;
  if (status !== 'running') return `not handed back: it is ${status}`;
  return undefined;
}
