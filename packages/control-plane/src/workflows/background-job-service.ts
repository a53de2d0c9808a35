import type { JSONSchemaObject } from '@switchyard/core';
import type { AgentBudgetStore } from '../budgets/agent-budget-store';
import type { Database } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkParentTurnId } from '../values/check-parent-turn-id';
import { checkStoredText } from '../values/check-stored-value';
import { checkTraceParent } from '../values/check-trace-parent';
import { checkResultSchema } from './check-result-schema';
import { checkAgentMayStart, startedRecord, startIdempotencyKey, storeStartOnce } from './start-work';
import type { WorkOrigin } from './work-turn';
import type { WorkTurnQueue } from './work-turn-queue';

/** A background agent job as the job service reports it. */
export interface BackgroundJobRecord {
  /** The job id. */
  id: string;
  /** `queued`, `running`, `completed`, `failed` or `cancelled`. */
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** The prompt its sub-agent turn runs. */
  prompt: string;
  /** The result schema, or null (the turn's final text is the result, as `{ text }`). */
  resultSchema: JSONSchemaObject | null;
  /** The stored result, or null. */
  result: unknown;
  /** Why it failed, or null. */
  error: string | null;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it ended (ISO 8601), or null. */
  finishedAt: string | null;
}

/** What `startBackgroundJob` takes. */
export interface StartBackgroundJobRequest {
  /** The agent that owns the job. */
  agentId: string;
  /** What the job's sub-agent turn is asked. */
  prompt: string;
  /** An optional result schema of the closed shapes; the turn then ends with `submit_result`. */
  resultSchema?: JSONSchemaObject;
  /** Set when a task or job turn asks: such turns may not start jobs, and are refused. */
  origin?: WorkOrigin;
  /**
   * The W3C `traceparent` of the call that starts it: its task and job turns continue that trace,
   * whichever process runs them.
   */
  traceParent?: string;
  /**
   * The turn whose tool call starts it (a turn's `start_background_job` tool): the job's turn's
   * `origin` names that turn as its parent. Absent for a start from the API or the CLI.
   */
  parentTurnId?: string;
  /** The same key for every attempt to start this one job. Default: a new key. */
  idempotencyKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface JobRow {
  id: string;
  status: BackgroundJobRecord['status'];
  payload: { prompt: string; resultSchema: JSONSchemaObject | null };
  result: unknown;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const COLUMNS = 'id, status, payload, result, error, created_at, finished_at';

function toRecord(row: JobRow): BackgroundJobRecord {
  return {
    id: row.id,
    status: row.status,
    prompt: row.payload.prompt,
    resultSchema: row.payload.resultSchema ?? null,
    result: row.result ?? null,
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
  };
}

/**
 * The control plane's background job service: start, check and cancel an agent's background agent
 * jobs, each run as a separate sub-agent turn through the work-turn queue. It has the shape of
 * `@switchyard/tools-workflow`'s `BackgroundJobService`.
 *
 * Contract: every method is scoped to `agentId`. `startBackgroundJob` refuses a request from a task
 * or job turn (`origin` set) and a result schema outside the closed shapes, with
 * `ControlPlaneInputError`, before anything is stored.
 */
export class ControlPlaneBackgroundJobService {
  readonly #database: Database;
  readonly #workTurns: WorkTurnQueue;
  readonly #maxPromptBytes: number;
  readonly #budgets: Pick<AgentBudgetStore, 'countStart'> | undefined;

  /** Use `controlPlane.backgroundJobs` rather than constructing one. */
  constructor(
    database: Database,
    workTurns: WorkTurnQueue,
    options: { maxPromptBytes: number; budgets?: Pick<AgentBudgetStore, 'countStart'> },
  ) {
    this.#database = database;
    this.#workTurns = workTurns;
    this.#maxPromptBytes = options.maxPromptBytes;
    this.#budgets = options.budgets;
  }

  /**
   * Stores a job and queues its turn.
   *
   * Contract: throws `RateLimitedError` when the agent started its `backgroundJobsPerHour` in the
   * last hour; nothing is stored then (a start answered from its idempotency key is not counted again).
   */
  async startBackgroundJob(request: StartBackgroundJobRequest): Promise<BackgroundJobRecord> {
    const agentId = checkAgentMayStart(request, 'background jobs');
    const prompt = checkStoredText('prompt', request.prompt, { maxBytes: this.#maxPromptBytes });
    let resultSchema: JSONSchemaObject | null = null;
    if (request.resultSchema !== undefined && request.resultSchema !== null) {
      const checked = checkResultSchema(request.resultSchema);
      if (!checked.ok) {
        throw new ControlPlaneInputError('resultSchema', `at ${checked.path}: ${checked.message}`);
      }
      resultSchema = checked.schema;
    }
    const traceParent = checkTraceParent(request.traceParent);
    const parentTurnId = checkParentTurnId(request.parentTurnId);
    const key = startIdempotencyKey(request.idempotencyKey, 'job');
    await this.#workTurns.ensureQueue(agentId);
    const storedId = await storeStartOnce(
      this.#database,
      'switchyard.background_jobs',
      key,
      (id) => ({
        text: `INSERT INTO switchyard.background_jobs
                 (id, agent_id, kind, payload, idempotency_key, trace_parent, parent_turn_id)
               VALUES ($1, $2, 'agent-turn', $3::jsonb, $4, $5, $6) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
        values: [id, agentId, JSON.stringify({ prompt, resultSchema }), key, traceParent, parentTurnId],
      }),
      async (transaction, id) => {
        await this.#budgets?.countStart(transaction, agentId, 'background-job');
        await this.#workTurns.enqueue(transaction, agentId, { kind: 'background-job', jobId: id });
      },
    );
    return startedRecord(await this.checkBackgroundJob({ agentId, jobId: storedId }));
  }

  /** One of the agent's jobs with its status and result; null when it has none with that id. */
  async checkBackgroundJob(request: { agentId: string; jobId: string }): Promise<BackgroundJobRecord | null> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.jobId !== 'string' || !UUID.test(request.jobId)) return null;
    const { rows } = await this.#database.query<JobRow>(
      `SELECT ${COLUMNS} FROM switchyard.background_jobs WHERE id = $1 AND agent_id = $2 AND kind = 'agent-turn'`,
      [request.jobId, agentId],
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /**
   * Cancels one of the agent's queued or running jobs (a running turn's signal fires); a job that
   * already ended is returned unchanged. Null when the agent has no job with that id.
   */
  async cancelBackgroundJob(request: {
    agentId: string;
    jobId: string;
  }): Promise<BackgroundJobRecord | null> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.jobId !== 'string' || !UUID.test(request.jobId)) return null;
    await this.#database.query(
      `UPDATE switchyard.background_jobs SET status = 'cancelled', error = 'cancelled', updated_at = now(),
              finished_at = now()
       WHERE id = $1 AND agent_id = $2 AND status IN ('queued', 'running')`,
      [request.jobId, agentId],
    );
    return this.checkBackgroundJob({ agentId, jobId: request.jobId });
  }
}
