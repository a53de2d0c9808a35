import type { SqlExecutor } from '../database/database';
import { checkStoredJson, toStorableText } from '../values/check-stored-value';
import { dispatchWorkflow, type EnqueueWorkTurn } from './dispatch-workflow';
import type { QueuedWork } from './queued-work';

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
