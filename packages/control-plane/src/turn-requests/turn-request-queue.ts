import type PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { QueueConsumer } from '../queues/queue-consumer';
import { errorText } from '../values/error-text';
import type { TurnRequest, TurnRequestHandler } from './turn-request';

/** How turn requests are delivered. */
export interface TurnRequestOptions {
  /** How long a delivery may run before it counts as lost and is retried, in seconds. Default 900. */
  expireInSeconds?: number;
  /** Retries after the first delivery. Default 3. */
  retryLimit?: number;
  /** Seconds before a retry. Default 10. */
  retryDelaySeconds?: number;
  /** How often an idle consumer polls, in seconds (at least 0.5). Default 2. */
  pollingIntervalSeconds?: number;
}

/** What `work` takes. */
export interface TurnRequestWorkOptions {
  /** The agent whose turn requests to consume. Default: the control plane's `agentId`. */
  agentId?: string;
}

/** The pg-boss queue of one agent's turn requests. */
export function turnRequestQueueName(agentId: string): string {
  return `switchyard.turn-requests.${agentId}`;
}

/**
 * Turn requests: enqueued by the scheduler, one per (schedule, slot), and consumed by the worker's
 * daemon with `work(handler)`.
 *
 * Contract: delivery is at-least-once (a handler may run again after a crash or a throw); the
 * ledger row of the (schedule, slot) is completed once, and a delivery of an already completed run
 * is acknowledged without calling the handler.
 */
export class TurnRequestQueue {
  readonly #database: Database;
  readonly #consumer: QueueConsumer<TurnRequest>;

  /** Use `controlPlane.turnRequests` rather than constructing one. */
  constructor(
    boss: PgBoss,
    database: Database,
    options: Required<TurnRequestOptions>,
    defaultAgentId: string | undefined,
  ) {
    this.#database = database;
    this.#consumer = new QueueConsumer(boss, {
      database,
      queueName: turnRequestQueueName,
      contents: 'turn requests',
      policy: options,
      defaultAgentId,
    });
  }

  /** Creates the agent's queue once per process (idempotent in the database too). */
  ensureQueue(agentId: string): Promise<void> {
    return this.#consumer.ensureQueue(agentId);
  }

  /** Enqueues turn requests inside the caller's transaction, each with its run id as the job id. */
  async enqueue(transaction: SqlExecutor, requests: readonly TurnRequest[]): Promise<void> {
    await this.#consumer.insert(
      transaction,
      requests.map((request) => ({ id: request.runId, agentId: request.agentId, data: request })),
    );
  }

  /**
   * Starts consuming the agent's turn requests: each delivery marks its ledger row running, calls
   * `handler`, then marks it completed. Returns the pg-boss worker id.
   *
   * Contract: throws `ControlPlaneInputError` on `agentId` when neither the option nor the control
   * plane's `agentId` names an agent. A handler that throws marks the run failed and lets pg-boss
   * retry it; a delivery whose run is already completed is acknowledged without calling `handler`.
   *
   * @example
   * await controlPlane.turnRequests.work(async (request) => {
   *   await runTurn(request.agentId, request.prompt);
   * });
   */
  async work(handler: TurnRequestHandler, options: TurnRequestWorkOptions = {}): Promise<string> {
    const agentId = this.#consumer.agentFor(options.agentId);
    return this.#consumer.startWorker(agentId, (job) => this.#deliver(job, handler));
  }

  async #deliver(job: PgBoss.Job<TurnRequest>, handler: TurnRequestHandler): Promise<void> {
    const request = job.data;
    const { rows } = await this.#database.query<{ attempts: number }>(
      `UPDATE switchyard.schedule_runs
           SET status = 'running', attempts = attempts + 1, started_at = clock_timestamp(), error = NULL
           WHERE id = $1 AND status <> 'completed'
           RETURNING attempts`,
      [request.runId],
    );
    const claimed = rows[0];
    // Already completed (a duplicate delivery) or not in the ledger: acknowledge, run nothing.
    if (claimed === undefined) return;
    try {
      await handler(request, { attempt: claimed.attempts, jobId: job.id });
    } catch (error) {
      await this.#database.query(
        "UPDATE switchyard.schedule_runs SET status = 'failed', error = $2 WHERE id = $1 AND status <> 'completed'",
        [request.runId, errorText(error)],
      );
      throw error;
    }
    await this.#database.query(
      `UPDATE switchyard.schedule_runs SET status = 'completed', completed_at = clock_timestamp()
           WHERE id = $1 AND status <> 'completed'`,
      [request.runId],
    );
  }

  /** Stops every consumer this process started and waits for running handlers to finish. */
  async stop(): Promise<void> {
    await this.#consumer.stop();
  }
}
