import PgBoss from 'pg-boss';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';

/** How one kind of queue delivers: the options `TurnRequestOptions` and `WorkTurnOptions` share. */
export interface QueuePolicy {
  /** How long a delivery may run before it counts as lost and is retried, in seconds. */
  expireInSeconds: number;
  /** Retries after the first delivery. */
  retryLimit: number;
  /** Seconds before a retry (no backoff). */
  retryDelaySeconds: number;
  /** How often an idle worker polls, in seconds. */
  pollingIntervalSeconds: number;
}

/** What a `QueueConsumer` is built from. */
export interface QueueConsumerOptions {
  /** The database pg-boss runs on: queues are created in a transaction of it, one at a time. */
  database: Database;
  /** The pg-boss queue of one agent. */
  queueName: (agentId: string) => string;
  /** What the queue carries, plural ("turn requests"): names it in the error of `agentFor`. */
  contents: string;
  /** Retries, expiry and polling of every queue of this kind. */
  policy: QueuePolicy;
  /** The agent `agentFor` falls back to (the control plane's `agentId`), if any. */
  defaultAgentId: string | undefined;
}

/** One job to insert: its pg-boss id, the agent whose queue it goes to, and its data. */
export interface QueueJob<TData> {
  /** The pg-boss job id. */
  id: string;
  /** The agent whose queue receives it. */
  agentId: string;
  /** The job's data (copied into the queue). */
  data: TData;
}

/** The advisory lock key every queue creation takes (a fixed number of Switchyard's own). */
const CREATE_QUEUE_LOCK = 0x5377_7951;

/**
 * `createQueue` in one transaction that first takes a transaction-scoped advisory lock, through a
 * pg-boss bound to that transaction. pg-boss 10's `create_queue` inserts the queue row, then adds a
 * foreign key to the queue table and attaches a partition to the job table: two creations at once
 * (several workers starting on one server, or two queues of one process) each hold what the other
 * waits for, and PostgreSQL aborts one with "deadlock detected". Under the lock they run one at a
 * time, on one connection each; a queue another process created meanwhile is left as it is.
 */
async function createQueueSerialised(database: Database, name: string, options: PgBoss.Queue): Promise<void> {
  await database.transaction(async (transaction) => {
    await transaction.query('SELECT pg_advisory_xact_lock($1)', [CREATE_QUEUE_LOCK]);
    const boss = new PgBoss({
      db: transaction,
      schema: 'pgboss',
      migrate: false,
      supervise: false,
      schedule: false,
    });
    await boss.createQueue(name, options);
  });
}

/**
 * Internal (not exported from the package): the pg-boss plumbing of one kind of per-agent queue.
 * It creates each agent's queue once with the kind's policy, inserts jobs in a caller's
 * transaction, starts workers (one batch of one job at a time each) and keeps count of the
 * deliveries they run, so `stop` can wait for them. What a delivery means (the ledger rows it
 * claims and completes) is the owning queue's business: `TurnRequestQueue`, `WorkTurnQueue`.
 *
 * Contract: a delivery that rejects fails its job in pg-boss, which delivers it again after
 * `retryDelaySeconds` until `retryLimit` retries are spent; a delivery still running after
 * `expireInSeconds` counts as lost and is delivered again too (at-least-once).
 */
export class QueueConsumer<TData extends object> {
  readonly #boss: PgBoss;
  readonly #options: QueueConsumerOptions;
  readonly #createdQueues = new Map<string, Promise<void>>();
  readonly #workers: string[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(boss: PgBoss, options: QueueConsumerOptions) {
    this.#boss = boss;
    this.#options = options;
  }

  /**
   * The agent to consume for: `agentId`, else the default agent.
   *
   * Contract: throws `ControlPlaneInputError` on `agentId` when neither names an agent, or when
   * the id does not match `AGENT_ID_PATTERN`.
   */
  agentFor(agentId: string | undefined): string {
    const chosen = agentId ?? this.#options.defaultAgentId;
    if (chosen === undefined) {
      throw new ControlPlaneInputError(
        'agentId',
        `name the agent whose ${this.#options.contents} to consume`,
      );
    }
    return checkAgentId(chosen);
  }

  /** Creates the agent's queue once per process (idempotent in the database too); a failure is not kept. */
  ensureQueue(agentId: string): Promise<void> {
    let created = this.#createdQueues.get(agentId);
    if (created === undefined) {
      const name = this.#options.queueName(agentId);
      const { policy } = this.#options;
      created = createQueueSerialised(this.#options.database, name, {
        name,
        policy: 'standard',
        retryLimit: policy.retryLimit,
        retryDelay: policy.retryDelaySeconds,
        retryBackoff: false,
        expireInSeconds: policy.expireInSeconds,
      }).catch((error: unknown) => {
        this.#createdQueues.delete(agentId);
        throw error;
      });
      this.#createdQueues.set(agentId, created);
    }
    return created;
  }

  /** Inserts jobs inside the caller's transaction (their queues must exist): they commit or roll back with it. */
  async insert(transaction: SqlExecutor, jobs: readonly QueueJob<TData>[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.#boss.insert(
      jobs.map((job) => ({ id: job.id, name: this.#options.queueName(job.agentId), data: { ...job.data } })),
      { db: transaction },
    );
  }

  /**
   * Ensures the agent's queue and starts one worker on it that fetches one job at a time and
   * awaits `deliver` for it. Returns the pg-boss worker id.
   */
  async startWorker(agentId: string, deliver: (job: PgBoss.Job<TData>) => Promise<void>): Promise<string> {
    await this.ensureQueue(agentId);
    const workerId = await this.#boss.work<TData>(
      this.#options.queueName(agentId),
      { batchSize: 1, pollingIntervalSeconds: this.#options.policy.pollingIntervalSeconds },
      async (jobs) => {
        for (const job of jobs) await this.#track(deliver(job));
      },
    );
    this.#workers.push(workerId);
    return workerId;
  }

  #track(delivery: Promise<void>): Promise<void> {
    this.#inFlight.add(delivery);
    const untrack = () => this.#inFlight.delete(delivery);
    delivery.then(untrack, untrack);
    return delivery;
  }

  /**
   * Stops every worker this consumer started and waits for the deliveries they are running to
   * settle. pg-boss's `offWork` only asks its workers to stop; it does not wait for their jobs.
   */
  async stop(): Promise<void> {
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((id) => this.#boss.offWork({ id })));
    await Promise.allSettled([...this.#inFlight]);
  }
}
