import type { AgentBudgetStore } from '../budgets/agent-budget-store';
import type { Database, SqlExecutor } from '../database/database';
import { checkAgentId } from '../schedules/agent-id';
import { checkParentTurnId } from '../values/check-parent-turn-id';
import { checkTraceParent } from '../values/check-trace-parent';
import { checkWorkflowSpec, type WorkflowSpec } from './check-workflow-spec';
import { dispatchWorkflow } from './dispatch-workflow';
import { checkAgentMayStart, startedRecord, startIdempotencyKey, storeStartOnce } from './start-work';
import type { WorkOrigin } from './work-turn';
import type { WorkTurnQueue } from './work-turn-queue';

/** A workflow's or task's status. */
export type WorkflowStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** One task as `showWorkflow` reports it. */
export interface WorkflowTaskRecord {
  /** The task id. */
  id: string;
  /** `pending` (waiting for dependencies), `queued`, `running`, `completed`, `failed` or `cancelled`. */
  status: 'pending' | 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** The tasks it depends on. */
  dependsOn: string[];
  /** The stored result, or null. */
  result: unknown;
  /** Why it failed or was cancelled, or null. */
  error: string | null;
  /** Deliveries of its turn so far. */
  attempts: number;
}

/** A workflow as the workflow service reports it. */
export interface WorkflowRecord {
  /** The workflow id. */
  id: string;
  /** Its name. */
  name: string;
  /** `running` until every task is done, then `completed` or `failed`; or `cancelled`. */
  status: WorkflowStatus;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it ended (ISO 8601), or null. */
  finishedAt: string | null;
  /** Its tasks, in spec order. */
  tasks: WorkflowTaskRecord[];
}

/** What `startWorkflow` takes. */
export interface StartWorkflowRequest {
  /** The agent that owns the workflow. */
  agentId: string;
  /** The declarative spec. */
  spec: WorkflowSpec;
  /** Set when a task or job turn asks: such turns may not start workflows, and are refused. */
  origin?: WorkOrigin;
  /**
   * The W3C `traceparent` of the call that starts it: its task and job turns continue that trace,
   * whichever process runs them.
   */
  traceParent?: string;
  /**
   * The turn whose tool call starts it (a turn's `workflow` tool): its task turns' `origin` names
   * that turn as their parent. Absent for a start from the API or the CLI.
   */
  parentTurnId?: string;
  /** The same key for every attempt to start this one workflow. Default: a new key. */
  idempotencyKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface WorkflowRow {
  id: string;
  name: string;
  status: WorkflowStatus;
  created_at: Date;
  finished_at: Date | null;
}

/**
 * The control plane's workflow service: start, show, list and cancel an agent's workflows. It has
 * the shape of `@switchyard/tools-workflow`'s `WorkflowService`.
 *
 * Contract: every method is scoped to `agentId`. `startWorkflow` checks the whole spec before
 * anything is stored (see `checkWorkflowSpec`) and throws `ControlPlaneInputError` naming the task
 * and schema path; it refuses a request from a task or job turn (`origin` set).
 */
export class ControlPlaneWorkflowService {
  readonly #database: Database;
  readonly #workTurns: WorkTurnQueue;
  readonly #maxConcurrentTasks: number;
  readonly #maxPromptBytes: number;
  readonly #budgets: Pick<AgentBudgetStore, 'countStart'> | undefined;

  /** Use `controlPlane.workflows` rather than constructing one. */
  constructor(
    database: Database,
    workTurns: WorkTurnQueue,
    options: {
      maxConcurrentTasks: number;
      maxPromptBytes: number;
      budgets?: Pick<AgentBudgetStore, 'countStart'>;
    },
  ) {
    this.#database = database;
    this.#workTurns = workTurns;
    this.#maxConcurrentTasks = options.maxConcurrentTasks;
    this.#maxPromptBytes = options.maxPromptBytes;
    this.#budgets = options.budgets;
  }

  /**
   * Checks and stores a workflow, then queues the tasks that depend on nothing.
   *
   * Contract: throws `RateLimitedError` when the agent started its `workflowsPerHour` in the last
   * hour; nothing is stored then (a start answered from its idempotency key is not counted again).
   */
  async startWorkflow(request: StartWorkflowRequest): Promise<WorkflowRecord> {
    const agentId = checkAgentMayStart(request, 'workflows');
    const spec = checkWorkflowSpec(request.spec, this.#maxPromptBytes);
    const traceParent = checkTraceParent(request.traceParent);
    const parentTurnId = checkParentTurnId(request.parentTurnId);
    const key = startIdempotencyKey(request.idempotencyKey, 'workflow');
    await this.#workTurns.ensureQueue(agentId);
    const storedId = await storeStartOnce(
      this.#database,
      'switchyard.workflows',
      key,
      (id) => ({
        text: `INSERT INTO switchyard.workflows
                 (id, agent_id, name, definition, idempotency_key, max_concurrent_tasks, trace_parent, parent_turn_id)
               VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
        values: [
          id,
          agentId,
          spec.name,
          JSON.stringify(spec),
          key,
          this.#maxConcurrentTasks,
          traceParent,
          parentTurnId,
        ],
      }),
      async (transaction, id) => {
        await this.#budgets?.countStart(transaction, agentId, 'workflow');
        await this.#queueTasks(transaction, id, spec);
      },
    );
    return startedRecord(await this.showWorkflow({ agentId, workflowId: storedId }));
  }

  /** Stores a new workflow's tasks and queues those that depend on nothing. */
  async #queueTasks(transaction: SqlExecutor, id: string, spec: WorkflowSpec): Promise<void> {
    // Lock before dispatching, as every other dispatch does.
    await transaction.query('SELECT 1 FROM switchyard.workflows WHERE id = $1 FOR UPDATE', [id]);
    for (const [position, task] of spec.tasks.entries()) {
      await transaction.query(
        `INSERT INTO switchyard.workflow_tasks
           (workflow_id, task_id, input, position, prompt, result_schema, depends_on)
         VALUES ($1, $2, '{}'::jsonb, $3, $4, $5::jsonb, $6::text[])`,
        [id, task.id, position, task.prompt, JSON.stringify(task.resultSchema), task.dependsOn],
      );
    }
    await dispatchWorkflow(transaction, id, this.#workTurns.enqueue);
  }

  /** One of the agent's workflows with every task's status, result and error; null when it has none with that id. */
  async showWorkflow(request: { agentId: string; workflowId: string }): Promise<WorkflowRecord | null> {
    const agentId = checkAgentId(request.agentId);
    const found = await this.#show(request.workflowId, agentId);
    if (found === null) return null;
    const { agentId: _owner, ...record } = found;
    return record;
  }

  /**
   * Any agent's workflow, with the agent that owns it: an operator's view (`switchyard workflows
   * show`), never given to an agent's tools. Null when no workflow has that id.
   */
  inspectWorkflow(request: { workflowId: string }): Promise<(WorkflowRecord & { agentId: string }) | null> {
    return this.#show(request.workflowId, undefined);
  }

  async #show(
    workflowId: unknown,
    agentId: string | undefined,
  ): Promise<(WorkflowRecord & { agentId: string }) | null> {
    if (typeof workflowId !== 'string' || !UUID.test(workflowId)) return null;
    const { rows } = await this.#database.query<WorkflowRow & { agent_id: string }>(
      `SELECT id, agent_id, name, status, created_at, finished_at FROM switchyard.workflows
        WHERE id = $1 AND ($2::text IS NULL OR agent_id = $2)`,
      [workflowId, agentId ?? null],
    );
    const workflow = rows[0];
    if (workflow === undefined) return null;
    const { rows: tasks } = await this.#database.query<{
      task_id: string;
      status: WorkflowTaskRecord['status'];
      depends_on: string[];
      result: unknown;
      error: string | null;
      attempts: number;
    }>(
      `SELECT t.task_id, t.status, t.depends_on, r.result, t.error, t.attempts
       FROM switchyard.workflow_tasks t
       LEFT JOIN switchyard.task_results r ON r.workflow_id = t.workflow_id AND r.task_id = t.task_id
       WHERE t.workflow_id = $1 ORDER BY t.position`,
      [workflow.id],
    );
    return {
      ...toSummary(workflow),
      agentId: workflow.agent_id,
      tasks: tasks.map((task) => ({
        id: task.task_id,
        status: task.status,
        dependsOn: task.depends_on,
        result: task.result ?? null,
        error: task.error,
        attempts: task.attempts,
      })),
    };
  }

  /** The agent's 50 most recent workflows, newest first, without task details. */
  async listWorkflows(request: {
    agentId: string;
  }): Promise<Array<Omit<WorkflowRecord, 'tasks'> & { taskCounts: Record<string, number> }>> {
    const agentId = checkAgentId(request.agentId);
    const { rows } = await this.#database.query<WorkflowRow & { counts: Record<string, number> }>(
      `SELECT w.id, w.name, w.status, w.created_at, w.finished_at,
              (SELECT coalesce(jsonb_object_agg(status, n), '{}'::jsonb) FROM
                 (SELECT status, count(*)::int AS n FROM switchyard.workflow_tasks t
                  WHERE t.workflow_id = w.id GROUP BY status) c) AS counts
       FROM switchyard.workflows w WHERE w.agent_id = $1 ORDER BY w.created_at DESC, w.id LIMIT 50`,
      [agentId],
    );
    return rows.map((row) => ({ ...toSummary(row), taskCounts: row.counts }));
  }

  /**
   * Cancels one of the agent's running workflows: pending and queued tasks never start, running
   * ones are aborted (their turn's signal fires), stored results stay. Null when the agent has no
   * workflow with that id; a workflow that already ended is returned unchanged.
   */
  async cancelWorkflow(request: { agentId: string; workflowId: string }): Promise<WorkflowRecord | null> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.workflowId !== 'string' || !UUID.test(request.workflowId)) return null;
    const found = await this.#database.transaction(async (transaction) => {
      const { rows } = await transaction.query<{ status: string }>(
        'SELECT status FROM switchyard.workflows WHERE id = $1 AND agent_id = $2 FOR UPDATE',
        [request.workflowId, agentId],
      );
      const workflow = rows[0];
      if (workflow === undefined) return false;
      if (workflow.status !== 'running') return true;
      await transaction.query(
        "UPDATE switchyard.workflows SET status = 'cancelled', finished_at = clock_timestamp() WHERE id = $1",
        [request.workflowId],
      );
      await transaction.query(
        `UPDATE switchyard.workflow_tasks SET status = 'cancelled', error = 'cancelled with the workflow',
                finished_at = clock_timestamp()
         WHERE workflow_id = $1 AND status IN ('pending', 'queued', 'running')`,
        [request.workflowId],
      );
      return true;
    });
    return found ? this.showWorkflow({ agentId, workflowId: request.workflowId }) : null;
  }
}

function toSummary(row: WorkflowRow): Omit<WorkflowRecord, 'tasks'> {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
  };
}
