import type { SqlExecutor } from '../database/database';

/**
 * Enqueues one work turn inside the caller's transaction, as its unit's current job. `options`:
 * a delay before it may start, and the pg-boss retries its job has (default: the queue's).
 */
export type EnqueueWorkTurn = (
  transaction: SqlExecutor,
  agentId: string,
  data:
    | { kind: 'workflow-task'; workflowId: string; taskId: string }
    | { kind: 'background-job'; jobId: string },
  options?: { startAfterSeconds?: number; retryLimit?: number },
) => Promise<void>;

interface TaskRow {
  task_id: string;
  status: string;
  depends_on: string[];
  error: string | null;
}

/**
 * Moves a running workflow forward inside the caller's transaction (which holds the workflow row's
 * lock): fails the pending dependants of failed tasks, enqueues pending tasks whose dependencies are
 * all completed (up to the workflow's concurrency limit), and finishes the workflow when no task is
 * left to run.
 */
export async function dispatchWorkflow(
  transaction: SqlExecutor,
  workflowId: string,
  enqueue: EnqueueWorkTurn,
): Promise<void> {
  const { rows: workflows } = await transaction.query<{
    agent_id: string;
    status: string;
    max_concurrent_tasks: number;
  }>('SELECT agent_id, status, max_concurrent_tasks FROM switchyard.workflows WHERE id = $1', [workflowId]);
  const workflow = workflows[0];
  if (workflow === undefined || workflow.status !== 'running') return;
  const { rows: tasks } = await transaction.query<TaskRow>(
    `SELECT task_id, status, depends_on, error FROM switchyard.workflow_tasks
     WHERE workflow_id = $1 ORDER BY position`,
    [workflowId],
  );
  const byId = new Map(tasks.map((task) => [task.task_id, task]));
  const failed: TaskRow[] = [];
  // A failure spreads through every pending dependant, however deep, in one pass per level.
  for (let changed = true; changed; ) {
    changed = false;
    for (const task of tasks) {
      if (task.status !== 'pending') continue;
      const broken = task.depends_on.find((id) => {
        const status = byId.get(id)?.status;
        return status === 'failed' || status === 'cancelled';
      });
      if (broken === undefined) continue;
      task.status = 'failed';
      task.error = `dependency "${broken}" failed: ${byId.get(broken)?.error ?? 'no reason recorded'}`;
      failed.push(task);
      changed = true;
    }
  }
  for (const task of failed) {
    await transaction.query(
      `UPDATE switchyard.workflow_tasks SET status = 'failed', error = $3, finished_at = clock_timestamp()
       WHERE workflow_id = $1 AND task_id = $2 AND status = 'pending'`,
      [workflowId, task.task_id, task.error],
    );
  }
  let active = tasks.filter((task) => task.status === 'queued' || task.status === 'running').length;
  for (const task of tasks) {
    if (active >= workflow.max_concurrent_tasks) break;
    if (task.status !== 'pending') continue;
    if (!task.depends_on.every((id) => byId.get(id)?.status === 'completed')) continue;
    await transaction.query(
      "UPDATE switchyard.workflow_tasks SET status = 'queued' WHERE workflow_id = $1 AND task_id = $2",
      [workflowId, task.task_id],
    );
    await enqueue(transaction, workflow.agent_id, {
      kind: 'workflow-task',
      workflowId,
      taskId: task.task_id,
    });
    task.status = 'queued';
    active += 1;
  }
  const open = tasks.some((task) => ['pending', 'queued', 'running'].includes(task.status));
  if (!open) {
    const outcome = tasks.every((task) => task.status === 'completed') ? 'completed' : 'failed';
    await transaction.query(
      'UPDATE switchyard.workflows SET status = $2, finished_at = clock_timestamp() WHERE id = $1',
      [workflowId, outcome],
    );
  }
}
