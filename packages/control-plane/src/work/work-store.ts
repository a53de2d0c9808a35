import { randomUUID } from 'node:crypto';
import type { Database } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkStoredText, toStoredJson } from '../values/check-stored-value';
import type { SubmitResultOutcome, SubmitResultRequest } from '../workflows/work-turn';

/** A background job or workflow as stored. */
export interface StoredWork {
  /** The row's id (a UUID). */
  id: string;
  /** False when the idempotency key already had a row: that row is returned and nothing is written. */
  created: boolean;
}

/** What `createBackgroundJob` takes. */
export interface CreateBackgroundJobRequest {
  /** The agent that owns the job. */
  agentId: string;
  /** What kind of job this is, e.g. `agent-turn`. */
  kind: string;
  /** The job's input (JSON). */
  payload: unknown;
  /** The same key for every attempt to create this one unit of work. */
  idempotencyKey: string;
}

/** What `createWorkflow` takes. */
export interface CreateWorkflowRequest {
  /** The agent that owns the workflow. */
  agentId: string;
  /** A short name. */
  name: string;
  /** The workflow's definition (JSON). */
  definition: unknown;
  /** Its tasks; each `taskId` once. */
  tasks: ReadonlyArray<{ taskId: string; input: unknown }>;
  /** The same key for every attempt to create this one workflow. */
  idempotencyKey: string;
}

/** What `storeTaskResult` takes. */
export interface StoreTaskResultRequest {
  /** The workflow's id. */
  workflowId: string;
  /** The task's id within the workflow. */
  taskId: string;
  /** The result (JSON); validated again against the task's stored result schema, when it has one. */
  result: unknown;
  /** The attempt storing it: taken only while that attempt is the task's current one. */
  attempt?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Durable records for background jobs, workflows and task results, each effectively-once: a
 * repeated create with the same idempotency key, or a second result for the same task, writes
 * nothing and says so.
 *
 * Contract: values PostgreSQL would refuse (NUL characters, lone surrogates, values over
 * `maxValueBytes`) throw `ControlPlaneInputError` naming the field before anything is written.
 */
export class WorkStore {
  readonly #database: Database;
  readonly #maxValueBytes: number;
  readonly #submitResult: (request: SubmitResultRequest) => Promise<SubmitResultOutcome>;

  /** Use `controlPlane.work` rather than constructing one. */
  constructor(
    database: Database,
    maxValueBytes: number,
    submitResult: (request: SubmitResultRequest) => Promise<SubmitResultOutcome>,
  ) {
    this.#database = database;
    this.#maxValueBytes = maxValueBytes;
    this.#submitResult = submitResult;
  }

  /** Records a background job once per idempotency key. */
  async createBackgroundJob(request: CreateBackgroundJobRequest): Promise<StoredWork> {
    const agentId = checkAgentId(request.agentId);
    const kind = checkStoredText('kind', request.kind, { maxBytes: 200 });
    const key = checkStoredText('idempotencyKey', request.idempotencyKey, { maxBytes: 500 });
    const payload = toStoredJson('payload', request.payload, { maxBytes: this.#maxValueBytes });
    const id = randomUUID();
    const { rows } = await this.#database.query<{ id: string }>(
      `WITH inserted AS (
         INSERT INTO switchyard.background_jobs (id, agent_id, kind, payload, idempotency_key)
         VALUES ($1, $2, $3, $4::jsonb, $5) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id)
       SELECT id FROM inserted
       UNION ALL
       SELECT id FROM switchyard.background_jobs WHERE idempotency_key = $5 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [id, agentId, kind, payload, key],
    );
    const stored = rows[0]?.id ?? id;
    return { id: stored, created: stored === id };
  }

  /** Records a workflow and its tasks once per idempotency key, in one transaction. */
  async createWorkflow(request: CreateWorkflowRequest): Promise<StoredWork> {
    const agentId = checkAgentId(request.agentId);
    const name = checkStoredText('name', request.name, { maxBytes: 200 });
    const key = checkStoredText('idempotencyKey', request.idempotencyKey, { maxBytes: 500 });
    const definition = toStoredJson('definition', request.definition, { maxBytes: this.#maxValueBytes });
    if (!Array.isArray(request.tasks)) throw new ControlPlaneInputError('tasks', 'must be an array');
    const seen = new Set<string>();
    const tasks = request.tasks.map((task, index) => {
      const taskId = checkStoredText(`tasks[${index}].taskId`, task.taskId, { maxBytes: 200 });
      if (seen.has(taskId)) throw new ControlPlaneInputError(`tasks[${index}].taskId`, `repeats ${taskId}`);
      seen.add(taskId);
      return {
        taskId,
        input: toStoredJson(`tasks[${index}].input`, task.input, { maxBytes: this.#maxValueBytes }),
      };
    });
    const id = randomUUID();
    return this.#database.transaction(async (transaction) => {
      const { rows } = await transaction.query(
        `INSERT INTO switchyard.workflows (id, agent_id, name, definition, idempotency_key)
         VALUES ($1, $2, $3, $4::jsonb, $5) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
        [id, agentId, name, definition, key],
      );
      if (rows.length === 0) {
        const { rows: existing } = await transaction.query<{ id: string }>(
          'SELECT id FROM switchyard.workflows WHERE idempotency_key = $1',
          [key],
        );
        return { id: existing[0]?.id ?? id, created: false };
      }
      for (const task of tasks) {
        await transaction.query(
          'INSERT INTO switchyard.workflow_tasks (workflow_id, task_id, input) VALUES ($1, $2, $3::jsonb)',
          [id, task.taskId, task.input],
        );
      }
      return { id, created: true };
    });
  }

  /**
   * Stores a task's result once: a retried or duplicated delivery stores nothing more and returns
   * `{ stored: false }`. It takes the same path as `workTurns.submitResult`: the value is checked
   * exactly as stored (finite JSON) and against the task's result schema, only a running task takes
   * a result (a record-only task of `createWorkflow`, which its caller runs, also while pending), and
   * storing it completes the task and moves its workflow on.
   *
   * Contract: throws `ControlPlaneInputError` on `taskId` when the workflow has no such task or the
   * task takes no result now (not running, cancelled, failed, another attempt), and on `result` for
   * a value that cannot be stored or does not match the schema. Nothing is written then.
   */
  async storeTaskResult(request: StoreTaskResultRequest): Promise<{ stored: boolean }> {
    if (typeof request.workflowId !== 'string' || !UUID.test(request.workflowId)) {
      throw new ControlPlaneInputError('workflowId', 'must be a workflow id (a UUID)');
    }
    const taskId = checkStoredText('taskId', request.taskId, { maxBytes: 200 });
    toStoredJson('result', request.result, { maxBytes: this.#maxValueBytes });
    const { rows: tasks } = await this.#database.query(
      'SELECT 1 FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = $2',
      [request.workflowId, taskId],
    );
    if (tasks.length === 0) {
      throw new ControlPlaneInputError('taskId', `workflow ${request.workflowId} has no task ${taskId}`);
    }
    const outcome = await this.#submitResult({
      target: { kind: 'workflow-task', workflowId: request.workflowId, taskId },
      result: request.result,
      ...(request.attempt === undefined ? {} : { attempt: request.attempt }),
    });
    switch (outcome.status) {
      case 'stored':
        return { stored: true };
      case 'already-stored':
        return { stored: false };
      case 'rejected':
        throw new ControlPlaneInputError(
          'result',
          `does not match the task's result schema: ${outcome.problems.join('; ')}`,
        );
      case 'closed':
        throw new ControlPlaneInputError('taskId', `task ${taskId} takes no result: ${outcome.reason}`);
    }
  }
}
