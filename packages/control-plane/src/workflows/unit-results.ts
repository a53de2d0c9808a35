import { randomUUID } from 'node:crypto';
import type { JSONSchemaObject } from '@switchyard/core';
import type { SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredJson, toStorableText } from '../values/check-stored-value';
import { dispatchWorkflow, type EnqueueWorkTurn } from './dispatch-workflow';
import type { QueuedWork } from './queued-work';
import { validateResult } from './validate-result';
import type { SubmitResultOutcome } from './work-turn';

const NO_SUBMISSION = 'the task turn ended without an accepted submit_result';

/** What storing a unit's end needs of its queue. */
export interface UnitStorage {
  /** Enqueues the tasks a failed task's workflow dispatches next. */
  enqueue: EnqueueWorkTurn;
  /** Largest stored value, in bytes. */
  maxValueBytes: number;
}

/**
 * What the end of a finished turn of attempt `attempt` means for its unit: a job without a result
 * schema stores the turn's text; anything else that has no accepted result fails. With `jobId`,
 * only while that job still carries the unit.
 */
export async function settleFinishedUnit(
  executor: SqlExecutor,
  storage: UnitStorage,
  work: QueuedWork,
  noResultSchema: boolean,
  attempt: number,
  output: string | undefined,
  jobId: string | undefined,
): Promise<void> {
  if (work.kind === 'background-job' && noResultSchema) {
    await storeJobText(executor, storage, work, attempt, output ?? '', jobId);
    return;
  }
  await failUnit(executor, storage, work, attempt, NO_SUBMISSION, jobId);
}

/**
 * Fails a task or job that attempt `attempt` is still running (a stored result, a cancellation, or
 * another attempt having taken it over wins); with `jobId`, only while that job carries the unit. A
 * failed task dispatches its workflow (its dependants fail with it).
 */
export async function failUnit(
  executor: SqlExecutor,
  storage: UnitStorage,
  work: QueuedWork,
  attempt: number,
  reason: string,
  jobId?: string,
): Promise<void> {
  if (work.kind === 'background-job') {
    await executor.query(
      `UPDATE switchyard.background_jobs SET status = 'failed', error = $2, updated_at = now(), finished_at = now()
       WHERE id = $1 AND status = 'running' AND attempts = $3 AND ($4::uuid IS NULL OR job_id IS NULL OR job_id = $4)`,
      [work.jobId, reason, attempt, jobId ?? null],
    );
    return;
  }
  await executor.query('SELECT 1 FROM switchyard.workflows WHERE id = $1 FOR UPDATE', [work.workflowId]);
  const { rows } = await executor.query(
    `UPDATE switchyard.workflow_tasks SET status = 'failed', error = $3, finished_at = clock_timestamp()
     WHERE workflow_id = $1 AND task_id = $2 AND status = 'running' AND attempts = $4
       AND ($5::uuid IS NULL OR job_id IS NULL OR job_id = $5) RETURNING 1`,
    [work.workflowId, work.taskId, reason, attempt, jobId ?? null],
  );
  if (rows.length > 0) await dispatchWorkflow(executor, work.workflowId, storage.enqueue);
}

/** Stores the final text of a job without a result schema as its result, if `attempt` still runs it. */
export async function storeJobText(
  executor: SqlExecutor,
  storage: UnitStorage,
  work: Extract<QueuedWork, { kind: 'background-job' }>,
  attempt: number,
  output: string,
  jobId: string | undefined,
): Promise<void> {
  // The model's text: what PostgreSQL cannot hold becomes U+FFFD rather than failing the job.
  const checked = checkStoredJson({ text: toStorableText(output) }, { maxBytes: storage.maxValueBytes });
  if (!checked.ok) {
    await failUnit(
      executor,
      storage,
      work,
      attempt,
      `the job's final text cannot be stored as its result: ${checked.reason}`,
      jobId,
    );
    return;
  }
  await executor.query(
    `UPDATE switchyard.background_jobs SET status = 'completed', result = $2::jsonb, updated_at = now(),
            finished_at = now()
     WHERE id = $1 AND status = 'running' AND attempts = $3 AND result IS NULL
       AND ($4::uuid IS NULL OR job_id IS NULL OR job_id = $4)`,
    [work.jobId, checked.text, attempt, jobId ?? null],
  );
}

/** The value as it will be stored, and the problems that keep it from being stored. */
export function checkResultValue(
  schema: JSONSchemaObject | null,
  value: unknown,
  maxValueBytes: number,
): { ok: true; text: string } | { ok: false; problems: string[] } {
  const stored = checkStoredJson(value, { maxBytes: maxValueBytes });
  if (!stored.ok) return { ok: false, problems: [`${stored.pointer ?? '/'}: ${stored.message}`] };
  // Validated exactly as stored: the round trip, not the object handed in.
  const problems = schema === null ? [] : validateResult(schema, stored.value);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, text: stored.text };
}

/**
 * Stores a job turn's submitted result once, inside the caller's transaction: see
 * `WorkTurnQueue.submitResult` for the contract.
 */
export async function submitJobResult(
  transaction: SqlExecutor,
  storage: UnitStorage,
  jobId: string,
  result: unknown,
  attempt: number | undefined,
): Promise<SubmitResultOutcome> {
  const { rows } = await transaction.query<{
    status: string;
    attempts: number;
    payload: { resultSchema: JSONSchemaObject | null };
    has_result: boolean;
  }>(
    `SELECT status, attempts, payload, result IS NOT NULL AS has_result
     FROM switchyard.background_jobs WHERE id = $1 FOR UPDATE`,
    [jobId],
  );
  const job = rows[0];
  if (job === undefined) throw new ControlPlaneInputError('jobId', `no job ${jobId}`);
  if (job.has_result) return { status: 'already-stored' };
  if (job.status === 'cancelled' || job.status === 'failed') {
    return { status: 'closed', reason: `the job is ${job.status}` };
  }
  const closed = notTaking('job', job.status, job.attempts, attempt);
  if (closed !== undefined) return closed;
  const checked = checkResultValue(job.payload.resultSchema, result, storage.maxValueBytes);
  if (!checked.ok) return { status: 'rejected', problems: checked.problems };
  await transaction.query(
    `UPDATE switchyard.background_jobs SET status = 'completed', result = $2::jsonb, updated_at = now(),
            finished_at = now() WHERE id = $1`,
    [jobId, checked.text],
  );
  return { status: 'stored' };
}

/**
 * Stores a task turn's submitted result once, inside the caller's transaction, completing the task
 * and dispatching its workflow: see `WorkTurnQueue.submitResult` for the contract.
 */
export async function submitTaskResult(
  transaction: SqlExecutor,
  storage: UnitStorage,
  target: { workflowId: string; taskId: string },
  result: unknown,
  attempt: number | undefined,
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
    attempts: number;
    result_schema: JSONSchemaObject | null;
    record_only: boolean;
  }>(
    `SELECT status, attempts, result_schema, prompt IS NULL AS record_only
     FROM switchyard.workflow_tasks WHERE workflow_id = $1 AND task_id = $2`,
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
  if (workflow.status !== 'running')
    return { status: 'closed', reason: `the workflow is ${workflow.status}` };
  // A record-only task (`work.createWorkflow`: no prompt, no dependencies, never queued) is run by
  // its caller, so it takes its result while pending; a task the control plane runs only from the
  // turn running it.
  const closed =
    task.record_only && task.status === 'pending'
      ? undefined
      : notTaking('task', task.status, task.attempts, attempt);
  if (closed !== undefined) return closed;
  const checked = checkResultValue(task.result_schema, result, storage.maxValueBytes);
  if (!checked.ok) return { status: 'rejected', problems: checked.problems };
  const { rows } = await transaction.query(
    `INSERT INTO switchyard.task_results (id, workflow_id, task_id, result) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (workflow_id, task_id) DO NOTHING RETURNING id`,
    [randomUUID(), target.workflowId, target.taskId, checked.text],
  );
  if (rows.length === 0) return { status: 'already-stored' };
  await transaction.query(
    `UPDATE switchyard.workflow_tasks SET status = 'completed', error = NULL, finished_at = clock_timestamp()
     WHERE workflow_id = $1 AND task_id = $2`,
    [target.workflowId, target.taskId],
  );
  if (!task.record_only) await dispatchWorkflow(transaction, target.workflowId, storage.enqueue);
  return { status: 'stored' };
}

/**
 * The `closed` outcome for a submission a task or job does not take now: it is not running, or
 * `attempt` is no longer its current attempt; undefined when it takes it.
 */
function notTaking(
  what: 'task' | 'job',
  status: string,
  attempts: number,
  attempt: number | undefined,
): SubmitResultOutcome | undefined {
  if (status === 'pending') {
    return {
      status: 'closed',
      reason: `the ${what} is pending (waiting for its dependencies): it has no turn yet`,
    };
  }
  if (status === 'queued' && attempt === undefined) {
    return { status: 'closed', reason: `the ${what} is queued: only the turn running it submits its result` };
  }
  if (attempt !== undefined && (attempts !== attempt || status !== 'running')) {
    return {
      status: 'closed',
      reason: `attempt ${attempt} of this ${what} was handed to another worker (this one was taken for dead): its result is not stored; stop here`,
    };
  }
  if (status !== 'running') return { status: 'closed', reason: `the ${what} is ${status}` };
  return undefined;
}
