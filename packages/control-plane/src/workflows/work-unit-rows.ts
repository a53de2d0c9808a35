import type { SqlExecutor } from '../database/database';
import type { InterruptedTurnFacts } from '../turns/turn-unit-hooks';
import { dispatchWorkflow, type EnqueueWorkTurn } from './dispatch-workflow';
import type { QueuedWork } from './queued-work';

// The rows of a unit of work (a workflow's task, a background job) as the work-turn queue reads and
// changes them around a turn: the job that carries it, its hand-back, its detachment.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A unit locked for the rest of the transaction: what deciding its fate needs. */
export interface LockedWorkUnit {
  /** `task <workflowId>/<taskId>` or `job <jobId>`, for descriptions. */
  label: string;
  /** Its agent. */
  agentId: string;
  /** The queue job that carries it now, if any. */
  jobId: string | null;
  /** Why it is not the turn's to hand back or detach (gone, ended, taken over), or undefined when it is. */
  settled?: string;
}

/** The unit a turn record names (`source`, `sourceId`), or undefined when it names no work-turn unit. */
export function unitOfTurn(turn: Pick<InterruptedTurnFacts, 'source' | 'sourceId'>): QueuedWork | undefined {
  if (turn.source === 'job')
    return UUID.test(turn.sourceId) ? { kind: 'background-job', jobId: turn.sourceId } : undefined;
  if (turn.source !== 'task') return undefined;
  const slash = turn.sourceId.indexOf('/');
  const workflowId = turn.sourceId.slice(0, slash);
  if (slash === -1 || !UUID.test(workflowId)) return undefined;
  return { kind: 'workflow-task', workflowId, taskId: turn.sourceId.slice(slash + 1) };
}

/** `workflowId/taskId` or the job id: how a hand-back names the unit. */
export function unitIdOf(work: QueuedWork): string {
  return work.kind === 'background-job' ? work.jobId : `${work.workflowId}/${work.taskId}`;
}

/** Whether `id` is a UUID, as workflow and job ids are. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/**
 * Locks the unit (and a task's workflow) for the rest of the transaction and says whether attempt
 * `attempt` still runs it.
 */
export async function lockWorkUnit(
  transaction: SqlExecutor,
  work: QueuedWork,
  attempt: number,
): Promise<LockedWorkUnit> {
  if (work.kind === 'background-job') {
    const label = `job ${work.jobId}`;
    const { rows } = await transaction.query<{
      status: string;
      attempts: number;
      job_id: string | null;
      agent_id: string;
    }>('SELECT status, attempts, job_id, agent_id FROM switchyard.background_jobs WHERE id = $1 FOR UPDATE', [
      work.jobId,
    ]);
    const job = rows[0];
    if (job === undefined) return { label, agentId: '', jobId: null, settled: 'no longer exists' };
    const settled = settledReason(job.status, job.attempts, attempt);
    return { label, agentId: job.agent_id, jobId: job.job_id, ...(settled === undefined ? {} : { settled }) };
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
    `SELECT status, attempts, job_id FROM switchyard.workflow_tasks
     WHERE workflow_id = $1 AND task_id = $2 FOR UPDATE`,
    [work.workflowId, work.taskId],
  );
  const workflow = workflows[0];
  const task = tasks[0];
  if (workflow === undefined || task === undefined) {
    return { label, agentId: '', jobId: null, settled: 'no longer exists' };
  }
  const settled = settledReason(
    workflow.status === 'running' ? task.status : `${task.status} (its workflow is ${workflow.status})`,
    task.attempts,
    attempt,
  );
  return {
    label,
    agentId: workflow.agent_id,
    jobId: task.job_id,
    ...(settled === undefined ? {} : { settled }),
  };
}

/** Records `jobId` as the job that carries the unit (a job id no job has detaches it from its queue). */
export async function recordUnitJob(
  transaction: SqlExecutor,
  work: QueuedWork,
  jobId: string,
): Promise<void> {
  if (work.kind === 'workflow-task') {
    await transaction.query(
      'UPDATE switchyard.workflow_tasks SET job_id = $3 WHERE workflow_id = $1 AND task_id = $2',
      [work.workflowId, work.taskId, jobId],
    );
  } else {
    await transaction.query('UPDATE switchyard.background_jobs SET job_id = $2 WHERE id = $1', [
      work.jobId,
      jobId,
    ]);
  }
}

/** Puts a locked unit back to `queued`, for the job that carries its next attempt. */
export async function markUnitQueued(transaction: SqlExecutor, work: QueuedWork): Promise<void> {
  if (work.kind === 'workflow-task') {
    await transaction.query(
      "UPDATE switchyard.workflow_tasks SET status = 'queued' WHERE workflow_id = $1 AND task_id = $2",
      [work.workflowId, work.taskId],
    );
  } else {
    await transaction.query(
      "UPDATE switchyard.background_jobs SET status = 'queued', updated_at = now() WHERE id = $1",
      [work.jobId],
    );
  }
}

/** Fails a locked unit for good with `reason`; a failed task dispatches its workflow (its dependants fail with it). */
export async function failLockedUnit(
  transaction: SqlExecutor,
  work: QueuedWork,
  reason: string,
  enqueue: EnqueueWorkTurn,
): Promise<void> {
  if (work.kind === 'background-job') {
    await transaction.query(
      `UPDATE switchyard.background_jobs SET status = 'failed', error = $2, updated_at = now(), finished_at = now()
       WHERE id = $1`,
      [work.jobId, reason],
    );
    return;
  }
  await transaction.query(
    `UPDATE switchyard.workflow_tasks SET status = 'failed', error = $3, finished_at = clock_timestamp()
     WHERE workflow_id = $1 AND task_id = $2`,
    [work.workflowId, work.taskId, reason],
  );
  await dispatchWorkflow(transaction, work.workflowId, enqueue);
}

/** Why a unit is not handed back (it ended, or another attempt took it), or undefined to hand it back. */
function settledReason(status: string, attempts: number, attempt: number): string | undefined {
  if (attempts !== attempt) return `not handed back: attempt ${attempts} had already taken it over`;
  if (status !== 'running') return `not handed back: it is ${status}`;
  return undefined;
}
