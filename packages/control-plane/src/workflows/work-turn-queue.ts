import { randomUUID } from 'node:crypto';
import type { JSONSchemaObject } from '@switchyard/core';
import type PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { QueueConsumer } from '../queues/queue-consumer';
import { toStoredJson } from '../values/check-stored-value';
import { errorText } from '../values/error-text';
import { checkResultSchema } from './check-result-schema';
import { TASK_REFERENCE } from './check-workflow-spec';
import { dispatchWorkflow, type EnqueueWorkTurn } from './dispatch-workflow';
import { validateResult } from './validate-result';
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
  /** Seconds before a retry. Default 5. */
  retryDelaySeconds?: number;
  /** How often an idle consumer polls, in seconds (at least 0.5). Default 2. */
  pollingIntervalSeconds?: number;
  /** How often a running turn checks whether its workflow or job was cancelled, in ms. Default 1000. */
  cancelCheckIntervalMs?: number;
}

/** What `work` takes. */
export interface WorkTurnWorkOptions {
  /** The agent whose work turns to consume. Default: the control plane's `agentId`. */
  agentId?: string;
  /** How many turns this process runs at once (one pg-boss worker each). Default 2. */
  concurrency?: number;
}

type QueuedWork =
  | { kind: 'workflow-task'; workflowId: string; taskId: string }
  | { kind: 'background-job'; jobId: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_SUBMISSION = 'the task turn ended without an accepted submit_result';

/** The pg-boss queue of one agent's work turns. */
export function workTurnQueueName(agentId: string): string {
  return `switchyard.work-turns.${agentId}`;
}

/**
 * jsonb does not keep key order, and strict mode compares the schema it is sent with its canonical
 * projection key by key: so a stored schema is put back in canonical order before a turn sees it.
 */
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
 * result (`UNIQUE (workflow_id, task_id)`), a job one result. A delivery of a finished, failed or
 * cancelled task or job is acknowledged without calling the handler. A running turn's `signal` fires
 * when its workflow or job is cancelled.
 */
export class WorkTurnQueue {
  readonly #database: Database;
  readonly #options: Required<WorkTurnOptions>;
  readonly #consumer: QueueConsumer<QueuedWork>;

  /** Use `controlPlane.workTurns` rather than constructing one. */
  constructor(
    boss: PgBoss,
    database: Database,
    options: Required<WorkTurnOptions>,
    defaultAgentId: string | undefined,
  ) {
    this.#database = database;
    this.#options = options;
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

  /** Internal: enqueues one work turn inside the caller's transaction (the queue must exist). */
  readonly enqueue: EnqueueWorkTurn = async (transaction, agentId, data) => {
    await this.#consumer.insert(transaction, [{ id: randomUUID(), agentId, data }]);
  };

  /**
   * Starts consuming the agent's work turns, `concurrency` at a time. Returns the pg-boss worker ids.
   *
   * Contract: throws `ControlPlaneInputError` on `agentId` when no agent is named. After the handler
   * returns, a task without an accepted result (or a job with a result schema and none) fails with
   * "ended without an accepted submit_result"; a job without a schema stores the turn's `output`. A
   * handler that throws is retried; after the last retry the task or job fails with its message.
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
      ids.push(await this.#consumer.startWorker(agentId, (job) => this.#deliver(job.data, handler)));
    }
    return ids;
  }

  async #claim(work: QueuedWork): Promise<{ turn: WorkTurn; attempt: number } | undefined> {
    if (work.kind === 'background-job') {
      const { rows } = await this.#database.query<{
        agent_id: string;
        payload: { prompt: string; resultSchema: JSONSchemaObject | null };
        attempts: number;
      }>(
        `UPDATE switchyard.background_jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
         WHERE id = $1 AND status IN ('queued', 'running') RETURNING agent_id, payload, attempts`,
        [work.jobId],
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
      }>(
        `UPDATE switchyard.workflow_tasks t
            SET status = 'running', attempts = t.attempts + 1, started_at = coalesce(t.started_at, clock_timestamp())
           FROM switchyard.workflows w
          WHERE t.workflow_id = $1 AND t.task_id = $2 AND w.id = t.workflow_id
            AND w.status = 'running' AND t.status IN ('queued', 'running')
          RETURNING w.agent_id, w.name, t.prompt, t.result_schema, t.depends_on, t.attempts`,
        [work.workflowId, work.taskId],
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
          resultSchema: canonical(row.result_schema) ?? row.result_schema,
        },
      };
    });
  }

  async #isCancelled(work: QueuedWork): Promise<boolean> {
    const { rows } =
      work.kind === 'background-job'
        ? await this.#database.query<{ status: string }>(
            'SELECT status FROM switchyard.background_jobs WHERE id = $1',
            [work.jobId],
          )
        : await this.#database.query<{ status: string }>(
            `SELECT CASE WHEN w.status = 'cancelled' THEN 'cancelled' ELSE t.status END AS status
             FROM switchyard.workflow_tasks t JOIN switchyard.workflows w ON w.id = t.workflow_id
             WHERE t.workflow_id = $1 AND t.task_id = $2`,
            [work.workflowId, work.taskId],
          );
    return rows[0]?.status === 'cancelled';
  }

  async #deliver(work: QueuedWork, handler: WorkTurnHandler): Promise<void> {
    const claimed = await this.#claim(work);
    // Finished, failed or cancelled meanwhile (or a duplicate delivery): acknowledge, run nothing.
    if (claimed === undefined) return;
    const controller = new AbortController();
    const timer = setInterval(() => {
      this.#isCancelled(work).then(
        (cancelled) => {
          if (cancelled) controller.abort(new Error('cancelled'));
        },
        () => {},
      );
    }, this.#options.cancelCheckIntervalMs);
    let outcome: WorkTurnOutcome | undefined;
    try {
      outcome =
        (await handler(claimed.turn, { attempt: claimed.attempt, signal: controller.signal })) ?? undefined;
    } catch (error) {
      if (controller.signal.aborted) return;
      // The last delivery fails the work for good; earlier ones go back to pg-boss for a retry.
      if (claimed.attempt > this.#options.retryLimit) {
        await this.#fail(work, `the turn failed: ${errorText(error)}`);
        return;
      }
      throw error;
    } finally {
      clearInterval(timer);
    }
    if (controller.signal.aborted) return;
    if (claimed.turn.kind === 'background-job' && claimed.turn.resultSchema === null) {
      await this.#storeJobResult(work as { jobId: string }, { text: outcome?.output ?? '' });
      return;
    }
    await this.#fail(work, NO_SUBMISSION);
  }

  /** Fails a task or job that is still running (a stored result or a cancellation wins). */
  async #fail(work: QueuedWork, reason: string): Promise<void> {
    if (work.kind === 'background-job') {
      await this.#database.query(
        `UPDATE switchyard.background_jobs SET status = 'failed', error = $2, updated_at = now(), finished_at = now()
         WHERE id = $1 AND status IN ('queued', 'running')`,
        [work.jobId, reason],
      );
      return;
    }
    await this.#database.transaction(async (transaction) => {
      await transaction.query('SELECT 1 FROM switchyard.workflows WHERE id = $1 FOR UPDATE', [
        work.workflowId,
      ]);
      const { rows } = await transaction.query(
        `UPDATE switchyard.workflow_tasks SET status = 'failed', error = $3, finished_at = clock_timestamp()
         WHERE workflow_id = $1 AND task_id = $2 AND status IN ('queued', 'running') RETURNING 1`,
        [work.workflowId, work.taskId, reason],
      );
      if (rows.length > 0) await dispatchWorkflow(transaction, work.workflowId, this.enqueue);
    });
  }

  async #storeJobResult(work: { jobId: string }, result: unknown): Promise<SubmitResultOutcome> {
    const json = toStoredJson('result', result, { maxBytes: 1024 * 1024 });
    const { rows } = await this.#database.query(
      `UPDATE switchyard.background_jobs SET status = 'completed', result = $2::jsonb, updated_at = now(),
              finished_at = now()
       WHERE id = $1 AND status IN ('queued', 'running') AND result IS NULL RETURNING 1`,
      [work.jobId, json],
    );
    return rows.length > 0 ? { status: 'stored' } : { status: 'already-stored' };
  }

  /**
   * Validates a task turn's result against the stored result schema, server side, and stores it
   * once. Implements `@switchyard/tools-workflow`'s `TaskResultService`.
   *
   * Contract: an invalid value is `{ status: 'rejected', problems }` (nothing stored); a second
   * valid submission is `{ status: 'already-stored' }`; a cancelled or failed task or job is
   * `{ status: 'closed', reason }`. Storing a task's result completes it and starts the tasks that
   * were waiting for it. Throws `ControlPlaneInputError` for an unknown target.
   */
  async submitResult(request: SubmitResultRequest): Promise<SubmitResultOutcome> {
    const { target } = request;
    if (target?.kind === 'background-job') {
      if (typeof target.jobId !== 'string' || !UUID.test(target.jobId)) {
        throw new ControlPlaneInputError('target.jobId', 'must be a job id (a UUID)');
      }
      return this.#database.transaction(async (transaction) => {
        const { rows } = await transaction.query<{
          status: string;
          payload: { resultSchema: JSONSchemaObject | null };
          has_result: boolean;
        }>(
          'SELECT status, payload, result IS NOT NULL AS has_result FROM switchyard.background_jobs WHERE id = $1 FOR UPDATE',
          [target.jobId],
        );
        const job = rows[0];
        if (job === undefined) throw new ControlPlaneInputError('target.jobId', `no job ${target.jobId}`);
        if (job.has_result) return { status: 'already-stored' };
        if (job.status === 'cancelled' || job.status === 'failed') {
          return { status: 'closed', reason: `the job is ${job.status}` };
        }
        const problems = this.#problems(job.payload.resultSchema, request.result);
        if (problems.length > 0) return { status: 'rejected', problems };
        await transaction.query(
          `UPDATE switchyard.background_jobs SET status = 'completed', result = $2::jsonb, updated_at = now(),
                  finished_at = now() WHERE id = $1`,
          [target.jobId, JSON.stringify(request.result)],
        );
        return { status: 'stored' };
      });
    }
    if (target?.kind !== 'workflow-task') {
      throw new ControlPlaneInputError('target', "must be a 'workflow-task' or 'background-job' target");
    }
    if (typeof target.workflowId !== 'string' || !UUID.test(target.workflowId)) {
      throw new ControlPlaneInputError('target.workflowId', 'must be a workflow id (a UUID)');
    }
    return this.#database.transaction((transaction) => this.#submitTask(transaction, target, request.result));
  }

  #problems(schema: JSONSchemaObject | null, value: unknown): string[] {
    try {
      toStoredJson('result', value, { maxBytes: 1024 * 1024 });
    } catch (error) {
      return [errorText(error)];
    }
    return schema === null ? [] : validateResult(schema, value);
  }

  async #submitTask(
    transaction: SqlExecutor,
    target: { workflowId: string; taskId: string },
    result: unknown,
  ): Promise<SubmitResultOutcome> {
    // The workflow row's lock serialises submissions and dispatch of one workflow.
    const { rows: workflows } = await transaction.query<{ status: string }>(
      'SELECT status FROM switchyard.workflows WHERE id = $1 FOR UPDATE',
      [target.workflowId],
    );
    const workflow = workflows[0];
    if (workflow === undefined) {
      throw new ControlPlaneInputError('target.workflowId', `no workflow ${target.workflowId}`);
    }
    const { rows: tasks } = await transaction.query<{
      status: string;
      result_schema: JSONSchemaObject | null;
    }>(
      'SELECT status, result_schema FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = $2',
      [target.workflowId, target.taskId],
    );
    const task = tasks[0];
    if (task === undefined) {
      throw new ControlPlaneInputError(
        'target.taskId',
        `workflow ${target.workflowId} has no task ${String(target.taskId)}`,
      );
    }
    const { rows: stored } = await transaction.query(
      'SELECT 1 FROM switchyard.task_results WHERE workflow_id = $1 AND task_id = $2',
      [target.workflowId, target.taskId],
    );
    if (stored.length > 0) return { status: 'already-stored' };
    if (workflow.status === 'cancelled' || task.status === 'cancelled') {
      return { status: 'closed', reason: 'the workflow was cancelled' };
    }
    if (task.status === 'failed') return { status: 'closed', reason: 'the task has already failed' };
    const problems = this.#problems(task.result_schema, result);
    if (problems.length > 0) return { status: 'rejected', problems };
    const { rows } = await transaction.query(
      `INSERT INTO switchyard.task_results (id, workflow_id, task_id, result) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (workflow_id, task_id) DO NOTHING RETURNING id`,
      [randomUUID(), target.workflowId, target.taskId, JSON.stringify(result)],
    );
    if (rows.length === 0) return { status: 'already-stored' };
    await transaction.query(
      `UPDATE switchyard.workflow_tasks SET status = 'completed', error = NULL, finished_at = clock_timestamp()
       WHERE workflow_id = $1 AND task_id = $2`,
      [target.workflowId, target.taskId],
    );
    await dispatchWorkflow(transaction, target.workflowId, this.enqueue);
    return { status: 'stored' };
  }

  /** Stops every consumer this process started and waits for running handlers to finish. */
  async stop(): Promise<void> {
    await this.#consumer.stop();
  }
}
