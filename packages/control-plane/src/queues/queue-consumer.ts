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
  /** Seconds before a retry: the first retry after a failed delivery, and later ones (see `retryBackoff`). */
  retryDelaySeconds: number;
  /** Double the delay with each further retry (pg-boss adds up to as much again at random). */
  retryBackoff: boolean;
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
  /** Not delivered before this many seconds from now (the database's clock). Default: at once. */
  startAfterSeconds?: number;
  /** pg-boss retries of this job after a failed or expired delivery. Default: the queue's `retryLimit`. */
  retryLimit?: number;
}

/**
 * How long the next attempt of a unit waits after its attempt `attempt` was interrupted (its worker
 * died): the first retry starts at once, since a live worker can take it; each later one waits
 * `retryDelaySeconds`, doubled per retry with `retryBackoff` (at most a day), so a unit that keeps
 * killing its worker does not take the fleet down one process after another.
 */
export function handBackDelaySeconds(policy: QueuePolicy, attempt: number): number {
  if (attempt <= 1) return 0;
  const factor = policy.retryBackoff ? 2 ** Math.min(attempt - 2, 16) : 1;
  return Math.min(policy.retryDelaySeconds * factor, 86_400);
}

/**
 * pg-boss retries left for the job that carries attempt `attempt + 1`, so that pg-boss's own count
 * (which restarts with each new job) and the unit's attempts agree on `1 + retryLimit` attempts in all.
 */
export function retriesLeftAfter(policy: QueuePolicy, attempt: number): number {
  return Math.max(0, policy.retryLimit - attempt);
}

/**
 * Why a unit fails for good when the worker running attempt `attempt`, its last, stopped (its
 * heartbeat went stale).
 */
export function lastAttemptReason(policy: QueuePolicy, attempt: number): string {
  return `the worker running attempt ${attempt} stopped (its heartbeat went stale), and that was the last of the ${policy.retryLimit + 1} attempts allowed (retryLimit ${policy.retryLimit})`;
}

/** What the hand-back of attempt `attempt` says of the next one, which starts after `delaySeconds`. */
export function handedBackDescription(attempt: number, delaySeconds: number): string {
  return `handed back to its queue: attempt ${attempt + 1} starts ${delaySeconds === 0 ? 'at once' : `in ${delaySeconds} s`} on any live worker`;
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
 * `retryDelaySeconds` (doubling with `retryBackoff`) until `retryLimit` retries are spent; a delivery
 * still running after `expireInSeconds` counts as lost and is delivered again too (at-least-once).
 * The queue of an agent this process consumes takes this process's policy. A unit handed back by
 * its owner (`cancel` its job, `insert` a new one) is never delivered under the old job again.
 */
export class QueueConsumer<TData extends object> {
  readonly #boss: PgBoss;
  readonly #options: QueueConsumerOptions;
  readonly #createdQueues = new Map<string, Promise<void>>();
  readonly #appliedPolicies = new Map<string, Promise<void>>();
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
      created = createQueueSerialised(this.#options.database, name, this.#queueOptions(name)).catch(
        (error: unknown) => {
          this.#createdQueues.delete(agentId);
          throw error;
        },
      );
      this.#createdQueues.set(agentId, created);
    }
    return created;
  }

  #queueOptions(name: string): PgBoss.Queue {
    const { policy } = this.#options;
    return {
      name,
      policy: 'standard',
      retryLimit: policy.retryLimit,
      retryDelay: policy.retryDelaySeconds,
      retryBackoff: policy.retryBackoff,
      expireInSeconds: policy.expireInSeconds,
    };
  }

  /** Inserts jobs inside the caller's transaction (their queues must exist): they commit or roll back with it. */
  async insert(transaction: SqlExecutor, jobs: readonly QueueJob<TData>[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.#boss.insert(
      jobs.map((job) => ({
        id: job.id,
        name: this.#options.queueName(job.agentId),
        data: { ...job.data },
        // pg-boss reads a start time without a trailing Z as an interval from the database's now().
        ...(job.startAfterSeconds === undefined ? {} : { startAfter: `${job.startAfterSeconds} seconds` }),
        ...(job.retryLimit === undefined ? {} : { retryLimit: job.retryLimit }),
      })),
      { db: transaction },
    );
  }

  /**
   * Cancels a job inside the caller's transaction, whatever state it is in short of finished
   * (created, retry, active): nobody fetches it again, and a late `complete` or `fail` from the
   * worker that held it (a slow one, taken for dead) changes nothing.
   */
  async cancel(transaction: SqlExecutor, agentId: string, jobId: string): Promise<void> {
    await this.#boss.cancel(this.#options.queueName(agentId), jobId, { db: transaction });
  }

  /**
   * Ensures the agent's queue and starts one worker on it that fetches one job at a time and
   * awaits `deliver` for it. Returns the pg-boss worker id.
   */
  async startWorker(agentId: string, deliver: (job: PgBoss.Job<TData>) => Promise<void>): Promise<string> {
    await this.ensureQueue(agentId);
    // The consumer's policy is the queue's: its expiry follows this process's turn limits, even when
    // the queue was created earlier by a process that only produces (with the defaults).
    await this.#applyPolicy(agentId);
    let workerId: string | undefined;
    workerId = await this.#boss.work<TData>(
      this.#options.queueName(agentId),
      { batchSize: 1, pollingIntervalSeconds: this.#options.policy.pollingIntervalSeconds },
      async (jobs) => {
        try {
          for (const job of jobs) await this.#track(deliver(job));
        } finally {
          // pg-boss 10 waits out the polling interval after every fetch, one that found a job too,
          // so a worker took at most one job per interval however short its turns were. A job
          // found means more may be waiting: fetch again at once (an empty fetch still waits).
          if (jobs.length > 0 && workerId !== undefined) this.#boss.notifyWorker(workerId);
        }
      },
    );
    this.#workers.push(workerId);
    return workerId;
  }

  #applyPolicy(agentId: string): Promise<void> {
    let applied = this.#appliedPolicies.get(agentId);
    if (applied === undefined) {
      const name = this.#options.queueName(agentId);
      applied = this.#boss.updateQueue(name, this.#queueOptions(name)).catch((error: unknown) => {
        this.#appliedPolicies.delete(agentId);
        throw error;
      });
      this.#appliedPolicies.set(agentId, applied);
    }
    return applied;
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
