import type { Database } from '../database/database';
import type { TurnRecord } from './turn-record';

/**
 * Where a turn came from, by name: the workflow and task of a task turn, the schedule (and the run)
 * of a schedule turn, the background job of a job turn. Absent parts were not found (a record
 * removed, a source id of an older shape).
 */
export interface TurnSourceDetail {
  /** A task turn's workflow. */
  workflow?: { id: string; name: string };
  /** A task turn's task id within its workflow. */
  taskId?: string;
  /** A schedule turn's schedule (its `sourceId` is the run's id, not the schedule's). */
  schedule?: { id: string; name: string };
  /** A schedule turn's run id. */
  scheduleRunId?: string;
  /** A job turn's background job id. */
  jobId?: string;
  /**
   * The turn whose tool call started the task's workflow or the job (`workflow`,
   * `start_background_job`); absent when the API or the CLI started it.
   */
  parentTurnId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The sources of `turns` by name, keyed by turn id (API turns have none): three indexed lookups by
 * primary key whatever the number of turns (the workflows' names and parent turns, the schedule
 * runs' schedules, the jobs' parent turns).
 */
export async function describeTurnSources(
  database: Database,
  turns: readonly TurnRecord[],
): Promise<Map<string, TurnSourceDetail>> {
  const workflowIds = new Set<string>();
  const runIds = new Set<string>();
  const jobIds = new Set<string>();
  const parts = new Map<string, TurnSourceDetail & { workflowId?: string }>();
  for (const turn of turns) {
    const sourceId = turn.sourceId;
    if (sourceId === undefined) continue;
    if (turn.source === 'task') {
      const slash = sourceId.indexOf('/');
      const workflowId = sourceId.slice(0, slash);
      if (slash === -1 || !UUID.test(workflowId)) continue;
      workflowIds.add(workflowId);
      parts.set(turn.id, { workflowId, taskId: sourceId.slice(slash + 1) });
    } else if (turn.source === 'schedule' && UUID.test(sourceId)) {
      runIds.add(sourceId);
      parts.set(turn.id, { scheduleRunId: sourceId });
    } else if (turn.source === 'job') {
      if (UUID.test(sourceId)) jobIds.add(sourceId);
      parts.set(turn.id, { jobId: sourceId });
    }
  }
  const [workflows, schedules, jobs] = await Promise.all([
    workflowIds.size === 0
      ? { rows: [] }
      : database.query<{ id: string; name: string; parent_turn_id: string | null }>(
          'SELECT id::text AS id, name, parent_turn_id FROM switchyard.workflows WHERE id = ANY($1::uuid[])',
          [[...workflowIds]],
        ),
    runIds.size === 0
      ? { rows: [] }
      : database.query<{ run_id: string; id: string; name: string }>(
          `SELECT run.id::text AS run_id, schedule.id::text AS id, schedule.name
             FROM switchyard.schedule_runs run JOIN switchyard.schedules schedule ON schedule.id = run.schedule_id
            WHERE run.id = ANY($1::uuid[])`,
          [[...runIds]],
        ),
    jobIds.size === 0
      ? { rows: [] }
      : database.query<{ id: string; parent_turn_id: string | null }>(
          `SELECT id::text AS id, parent_turn_id FROM switchyard.background_jobs
            WHERE id = ANY($1::uuid[]) AND parent_turn_id IS NOT NULL`,
          [[...jobIds]],
        ),
  ]);
  const workflowsById = new Map(workflows.rows.map((row) => [row.id, row]));
  const jobParents = new Map(jobs.rows.map((row) => [row.id, row.parent_turn_id]));
  const scheduleOfRun = new Map(schedules.rows.map((row) => [row.run_id, { id: row.id, name: row.name }]));
  const described = new Map<string, TurnSourceDetail>();
  for (const [turnId, { workflowId, ...detail }] of parts) {
    const workflow = workflowId === undefined ? undefined : workflowsById.get(workflowId.toLowerCase());
    const schedule =
      detail.scheduleRunId === undefined ? undefined : scheduleOfRun.get(detail.scheduleRunId.toLowerCase());
    const parentTurnId =
      workflow?.parent_turn_id ??
      (detail.jobId === undefined ? undefined : jobParents.get(detail.jobId.toLowerCase()));
    described.set(turnId, {
      ...(workflowId === undefined || workflow === undefined
        ? {}
        : { workflow: { id: workflowId, name: workflow.name } }),
      ...detail,
      ...(schedule === undefined ? {} : { schedule }),
      ...(parentTurnId === undefined || parentTurnId === null ? {} : { parentTurnId }),
    });
  }
  return described;
}
