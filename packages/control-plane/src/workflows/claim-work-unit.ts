import type { JSONSchemaObject } from '@switchyard/core';
import type { Database } from '../database/database';
import { checkResultSchema } from './check-result-schema';
import { TASK_REFERENCE } from './check-workflow-spec';
import type { QueuedWork } from './queued-work';
import type { WorkTurn } from './work-turn';

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
 * Marks the unit running as its next attempt, when `jobId` still carries it (a unit handed back
 * has a new job: a late delivery of the old one claims nothing).
 */
export async function claimWorkUnit(
  database: Database,
  work: QueuedWork,
  jobId: string,
): Promise<{ turn: WorkTurn; attempt: number } | undefined> {
  if (work.kind === 'background-job') {
    const { rows } = await database.query<{
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
  return database.transaction(async (transaction) => {
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
