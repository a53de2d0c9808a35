import { randomUUID } from 'node:crypto';
import type { AgentBudgetStore } from '../budgets/agent-budget-store';
import type { Database } from '../database/database';
import type { TurnRequest } from '../turn-requests/turn-request';
import type { TurnRequestQueue } from '../turn-requests/turn-request-queue';
import { SCHEDULE_COLUMNS, type ScheduleRow } from './schedule-row';
import { latestSlotAtOrBefore, nextFireTimes } from './schedule-timing';

/** What one scheduler tick did. */
export interface ScheduleTickResult {
  /** Due schedules examined. */
  due: number;
  /** Turn requests enqueued (new ledger rows). */
  enqueued: number;
  /** Due slots that already had a run (another process fired them first): not enqueued again. */
  alreadyFired: number;
  /** Due schedules not fired because their agent is at its `scheduleFiresPerHour`: they fire once it has room. */
  delayed?: number;
}

/** What `tick` takes. */
export interface ScheduleTickOptions {
  /** The time to fire up to. Default: now. */
  now?: Date;
  /** Schedules handled per transaction. Default 100. */
  batchSize?: number;
}

/** What `start` takes. */
export interface ScheduleTickerStartOptions {
  /** Milliseconds between ticks. Default 1000. */
  intervalMs?: number;
  /** Called with a tick's error; the ticker keeps going. Default: the control plane's `onError`. */
  onError?: (error: unknown) => void;
}

/**
 * The scheduler: finds due schedules and enqueues one turn request per (schedule, slot).
 * Any number of processes may tick at once: due rows are claimed with `FOR UPDATE SKIP LOCKED`, and
 * `UNIQUE (schedule_id, slot)` keeps a slot from firing twice.
 *
 * Contract: a cron schedule found due fires once, for its latest slot at or before `now`, however
 * many slots passed while nothing ticked; its next fire moves past `now`. A one-shot fires once and
 * becomes `finished`. The ledger row and the queue job are written in one transaction.
 */
export class ScheduleTicker {
  readonly #database: Database;
  readonly #queue: TurnRequestQueue;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  readonly #onError: (error: unknown) => void;
  readonly #budgets: Pick<AgentBudgetStore, 'tryCountStart'> | undefined;

  /** Use `controlPlane.scheduler` rather than constructing one. */
  constructor(
    database: Database,
    queue: TurnRequestQueue,
    onError: (error: unknown) => void = () => {},
    budgets?: Pick<AgentBudgetStore, 'tryCountStart'>,
  ) {
    this.#database = database;
    this.#queue = queue;
    this.#onError = onError;
    this.#budgets = budgets;
  }

  /**
   * Fires every due schedule once and returns what it did.
   *
   * @example
   * const { enqueued } = await controlPlane.scheduler.tick();
   */
  async tick(options: ScheduleTickOptions = {}): Promise<ScheduleTickResult> {
    const now = options.now ?? new Date();
    const batchSize = options.batchSize ?? 100;
    const total: ScheduleTickResult = { due: 0, enqueued: 0, alreadyFired: 0 };
    for (;;) {
      const { rows: agents } = await this.#database.query<{ agent_id: string }>(
        `SELECT DISTINCT agent_id FROM switchyard.schedules WHERE status = 'active' AND next_fire_at <= $1`,
        [now],
      );
      // Queues are created outside the transaction: PGlite is one connection.
      await Promise.all(agents.map((row) => this.#queue.ensureQueue(row.agent_id)));
      const batch = await this.#database.transaction(async (transaction) => {
        const result: ScheduleTickResult = { due: 0, enqueued: 0, alreadyFired: 0 };
        const { rows } = await transaction.query<ScheduleRow>(
          `SELECT ${SCHEDULE_COLUMNS} FROM switchyard.schedules
           WHERE status = 'active' AND next_fire_at <= $1
           ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [now, batchSize],
        );
        if (rows.length === 0) return result;
        result.due = rows.length;
        // A fire past its agent's hourly limit waits: its schedule is due again once the hour has
        // room (it then fires its latest slot, as after any pause), and nothing is enqueued now.
        const fireable: ScheduleRow[] = [];
        const delayed: { id: string; until: string }[] = [];
        for (const row of rows) {
          const refused = await this.#budgets?.tryCountStart(transaction, row.agent_id, 'schedule-fire');
          if (refused === undefined) fireable.push(row);
          else
            delayed.push({
              id: row.id,
              until: new Date(now.getTime() + refused.retryAfterSeconds * 1000).toISOString(),
            });
        }
        if (delayed.length > 0) {
          result.delayed = delayed.length;
          await transaction.query(
            `UPDATE switchyard.schedules AS schedule SET next_fire_at = planned.until
             FROM unnest($1::uuid[], $2::timestamptz[]) AS planned (id, until) WHERE schedule.id = planned.id`,
            [delayed.map((entry) => entry.id), delayed.map((entry) => entry.until)],
          );
        }
        if (fireable.length === 0) return result;
        const plans = fireable.map((row) => {
          const dueAt = row.next_fire_at ?? now;
          let slot = dueAt;
          let next: Date | null = null;
          if (row.kind === 'cron' && row.cron !== null) {
            const latest = latestSlotAtOrBefore(row.cron, row.time_zone, now);
            if (latest !== null && latest.getTime() > dueAt.getTime()) slot = latest;
            next =
              nextFireTimes({ kind: 'cron', cron: row.cron, timeZone: row.time_zone }, now, 1)[0] ?? null;
          }
          const request: TurnRequest = {
            runId: randomUUID(),
            scheduleId: row.id,
            scheduleName: row.name,
            agentId: row.agent_id,
            prompt: row.prompt,
            slot: slot.toISOString(),
            idempotencyKey: `schedule:${row.id}:${slot.toISOString()}`,
          };
          return { request, next };
        });
        // One statement each for the ledger rows, the queue jobs and the next fire times.
        const { rows: inserted } = await transaction.query<{ id: string }>(
          `INSERT INTO switchyard.schedule_runs (id, schedule_id, agent_id, slot, idempotency_key)
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::text[])
           ON CONFLICT DO NOTHING RETURNING id`,
          [
            plans.map((plan) => plan.request.runId),
            plans.map((plan) => plan.request.scheduleId),
            plans.map((plan) => plan.request.agentId),
            plans.map((plan) => plan.request.slot),
            plans.map((plan) => plan.request.idempotencyKey),
          ],
        );
        const fresh = new Set(inserted.map((row) => row.id));
        const requests = plans.map((plan) => plan.request).filter((request) => fresh.has(request.runId));
        await this.#queue.enqueue(transaction, requests);
        result.enqueued = requests.length;
        result.alreadyFired = plans.length - requests.length;
        await transaction.query(
          `UPDATE switchyard.schedules AS schedule
           SET next_fire_at = planned.next,
               status = CASE WHEN planned.next IS NULL THEN 'finished' ELSE schedule.status END
           FROM unnest($1::uuid[], $2::timestamptz[]) AS planned (id, next)
           WHERE schedule.id = planned.id`,
          [
            plans.map((plan) => plan.request.scheduleId),
            plans.map((plan) => plan.next?.toISOString() ?? null),
          ],
        );
        return result;
      });
      total.due += batch.due;
      total.enqueued += batch.enqueued;
      total.alreadyFired += batch.alreadyFired;
      if (batch.delayed !== undefined) total.delayed = (total.delayed ?? 0) + batch.delayed;
      if (batch.due < batchSize) return total;
    }
  }

  /**
   * Ticks every `intervalMs` until `stop()`. Idempotent: a second `start` changes nothing.
   *
   * @example
   * controlPlane.scheduler.start({ intervalMs: 1000, onError: console.error });
   */
  start(options: ScheduleTickerStartOptions = {}): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    const intervalMs = options.intervalMs ?? 1000;
    const loop = () => {
      if (this.#stopped) return;
      this.#running = this.tick()
        .catch((error: unknown) => (options.onError ?? this.#onError)(error))
        .finally(() => {
          this.#running = undefined;
          if (!this.#stopped) this.#timer = setTimeout(loop, intervalMs);
        });
    };
    loop();
  }

  /** Stops ticking and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
