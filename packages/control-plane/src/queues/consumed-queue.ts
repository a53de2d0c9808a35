import type PgBoss from 'pg-boss';
import type { Database } from '../database/database';
import type { DetachUnit, HandBackUnit, SettleDetachedUnit } from '../turns/turn-unit-hooks';
import {
  handBackDelaySeconds,
  handedBackDescription,
  lastAttemptReason,
  QueueConsumer,
  type QueueConsumerOptions,
  type QueuePolicy,
  retriesLeftAfter,
} from './queue-consumer';

/**
 * Internal (not exported from the package): what a per-agent queue on a `QueueConsumer` shares with
 * the other kinds (`TurnRequestQueue`, `WorkTurnQueue`): its database, its delivery policy, creating
 * an agent's queue and stopping its consumers; and the hooks on the units it carries, which each kind
 * implements (`routeTurnUnits` sends a turn's unit to its queue). What a delivery means is the
 * subclass's business.
 */
export abstract class ConsumedQueue<TData extends object, TPolicy extends QueuePolicy> {
  protected readonly database: Database;
  protected readonly options: TPolicy;
  protected readonly consumer: QueueConsumer<TData>;

  /** Internal: detaches a unit this queue carries from its job (`DetachUnit`). */
  abstract readonly detachUnit: DetachUnit;
  /** Internal: settles a unit this queue carries after its detached turn ended (`SettleDetachedUnit`). */
  abstract readonly settleDetached: SettleDetachedUnit;
  /** Internal: hands a unit this queue carries back after its turn was interrupted (`HandBackUnit`). */
  abstract readonly handBackInterrupted: HandBackUnit;

  protected constructor(boss: PgBoss, options: TPolicy, consumer: Omit<QueueConsumerOptions, 'policy'>) {
    this.database = consumer.database;
    this.options = options;
    this.consumer = new QueueConsumer(boss, { ...consumer, policy: options });
  }

  /** Creates the agent's queue once per process (idempotent in the database too). */
  ensureQueue(agentId: string): Promise<void> {
    return this.consumer.ensureQueue(agentId);
  }

  /** Stops every consumer this process started and waits for running handlers to finish. */
  async stop(): Promise<void> {
    await this.consumer.stop();
  }

  /**
   * Why a delivery of attempt `attempt`, past the attempts allowed, ends its unit: only a lost
   * delivery (its worker died unrecorded, the job expired) gets that far.
   */
  protected lostDeliveryReason(attempt: number): string {
    const { retryLimit } = this.options;
    return `attempt ${attempt} would exceed the ${retryLimit + 1} attempts allowed (retryLimit ${retryLimit}): an earlier attempt's worker stopped`;
  }

  /**
   * How attempt `attempt`'s unit goes back to its queue: the new job's delay and the pg-boss retries
   * it has left (`handBackDelaySeconds`, `retriesLeftAfter`), and what that says of the next attempt.
   */
  protected handBackOf(attempt: number): {
    startAfterSeconds: number;
    retryLimit: number;
    description: string;
  } {
    const startAfterSeconds = handBackDelaySeconds(this.options, attempt);
    return {
      startAfterSeconds,
      retryLimit: retriesLeftAfter(this.options, attempt),
      description: handedBackDescription(attempt, startAfterSeconds),
    };
  }

  /** Why a unit fails for good when the worker running attempt `attempt`, its last, stopped. */
  protected lastAttemptReason(attempt: number): string {
    return lastAttemptReason(this.options, attempt);
  }
}
