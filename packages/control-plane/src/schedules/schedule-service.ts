import { randomUUID } from 'node:crypto';
import type { AgentBudgetStore } from '../budgets/agent-budget-store';
import type { Database } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkLimit } from '../values/check-limit';
import { checkStoredText } from '../values/check-stored-value';
import { checkAgentId } from './agent-id';
import type { CreateScheduleRequest, ScheduleRecord, ScheduleRunRecord } from './schedule-record';
import { SCHEDULE_COLUMNS, type ScheduleRow, toScheduleRecord } from './schedule-row';
import { nextFireTimes, parseScheduleTiming } from './schedule-timing';

/** Limits on what agents may schedule. */
export interface ScheduleLimits {
  /** The shortest gap allowed between two fires of a cron schedule, in seconds. Default 300. */
  minimumIntervalSeconds?: number;
  /** How many active schedules one agent may have. Default 25. */
  maxSchedulesPerAgent?: number;
  /** The largest prompt stored, in UTF-8 bytes. Default 16 KiB. */
  maxPromptBytes?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_NAME_BYTES = 200;

/**
 * The control plane's schedule service: create, list and cancel an agent's schedules. It has the
 * shape of `@switchyard/tools-schedule`'s `ScheduleService`, so it is passed to
 * `createScheduleTools({ scheduleService, agentId })` as is.
 *
 * Contract: every method is scoped to `agentId`: an agent never sees or cancels another agent's
 * schedule. Bad input throws `ControlPlaneInputError` before anything is written.
 */
export class ControlPlaneScheduleService {
  readonly #database: Database;
  readonly #limits: Required<ScheduleLimits>;
  readonly #now: () => Date;
  readonly #onCreated: (agentId: string) => Promise<void>;
  readonly #budgets: Pick<AgentBudgetStore, 'countStart'> | undefined;

  /** Use `controlPlane.schedules` rather than constructing one. */
  constructor(
    database: Database,
    limits: Required<ScheduleLimits>,
    options: {
      now?: () => Date;
      onCreated?: (agentId: string) => Promise<void>;
      budgets?: Pick<AgentBudgetStore, 'countStart'>;
    } = {},
  ) {
    this.#database = database;
    this.#limits = limits;
    this.#now = options.now ?? (() => new Date());
    this.#onCreated = options.onCreated ?? (async () => {});
    this.#budgets = options.budgets;
  }

  /**
   * Creates a schedule for `request.agentId` and reports its next three fire times.
   *
   * Contract: throws `ControlPlaneInputError` for an invalid cron or time zone, a one-shot time in
   * the past, a cron more frequent than the minimum interval, an active schedule of the same name,
   * more active schedules than the per-agent limit, or a name or prompt with NUL characters or over
   * the size limit; `RateLimitedError` when the agent created its `schedulesPerHour` in the last hour
   * (a create answered from its idempotency key is not counted again).
   */
  async createSchedule(request: CreateScheduleRequest): Promise<ScheduleRecord> {
    const agentId = checkAgentId(request.agentId);
    const name = checkStoredText('name', request.name, { maxBytes: MAX_NAME_BYTES }).trim();
    const prompt = checkStoredText('prompt', request.prompt, { maxBytes: this.#limits.maxPromptBytes });
    const key =
      request.idempotencyKey === undefined
        ? null
        : checkStoredText('idempotencyKey', request.idempotencyKey, { maxBytes: 500 });
    const now = this.#now();
    const timing = parseScheduleTiming(request, {
      now,
      minimumIntervalSeconds: this.#limits.minimumIntervalSeconds,
    });
    const [firstFire] = nextFireTimes(timing, now, 1);
    if (firstFire === undefined) throw new ControlPlaneInputError('cron', 'never fires');
    // The queue exists before the first fire, outside the transaction (PGlite is one connection).
    await this.#onCreated(agentId);
    const row = await this.#database.transaction(async (transaction) => {
      // Serialise creates per agent so two concurrent calls cannot both pass the count check.
      await transaction.query("SELECT pg_advisory_xact_lock(hashtext('switchyard.schedules:' || $1))", [
        agentId,
      ]);
      if (key !== null) {
        const { rows: created } = await transaction.query<ScheduleRow>(
          `SELECT ${SCHEDULE_COLUMNS} FROM switchyard.schedules WHERE idempotency_key = $1`,
          [key],
        );
        const earlier = created[0];
        if (earlier !== undefined && earlier.agent_id !== agentId) {
          throw new ControlPlaneInputError('idempotencyKey', 'belongs to another agent');
        }
        if (earlier !== undefined) return earlier;
      }
      const { rows: counts } = await transaction.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM switchyard.schedules WHERE agent_id = $1 AND status = 'active'",
        [agentId],
      );
      const count = counts[0]?.count ?? 0;
      if (count >= this.#limits.maxSchedulesPerAgent) {
        throw new ControlPlaneInputError(
          'schedule',
          `this agent already has ${count} active schedules, the limit is ${this.#limits.maxSchedulesPerAgent}; cancel one first`,
        );
      }
      // Counted with the insert: a refused or failed create counts nothing.
      await this.#budgets?.countStart(transaction, agentId, 'schedule');
      const { rows } = await transaction.query<ScheduleRow>(
        `INSERT INTO switchyard.schedules
           (id, agent_id, name, prompt, kind, cron, time_zone, run_at, next_fire_at, idempotency_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (agent_id, name) WHERE status = 'active' DO NOTHING
         RETURNING ${SCHEDULE_COLUMNS}`,
        [
          randomUUID(),
          agentId,
          name,
          prompt,
          timing.kind,
          timing.kind === 'cron' ? timing.cron : null,
          timing.timeZone,
          timing.kind === 'once' ? timing.runAt : null,
          firstFire,
          key,
        ],
      );
      const created = rows[0];
      if (created === undefined) {
        throw new ControlPlaneInputError(
          'name',
          `this agent already has an active schedule named ${JSON.stringify(name)}; pick another name or cancel it`,
        );
      }
      return created;
    });
    return toScheduleRecord(row, now);
  }

  /**
   * Lists the agent's schedules, newest first: active ones, or every one with `includeInactive`.
   *
   * Contract: returns only `agentId`'s schedules.
   */
  async listSchedules(request: { agentId: string; includeInactive?: boolean }): Promise<ScheduleRecord[]> {
    const agentId = checkAgentId(request.agentId);
    const { rows } = await this.#database.query<ScheduleRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM switchyard.schedules
       WHERE agent_id = $1 AND ($2 OR status = 'active')
       ORDER BY created_at DESC, id LIMIT 500`,
      [agentId, request.includeInactive === true],
    );
    const now = this.#now();
    return rows.map((row) => toScheduleRecord(row, now));
  }

  /**
   * Cancels one of the agent's schedules; it fires no more. Cancelling a cancelled or finished
   * schedule changes nothing and returns it.
   *
   * Contract: returns null when the agent has no schedule with that id (another agent's included).
   */
  async cancelSchedule(request: { agentId: string; scheduleId: string }): Promise<ScheduleRecord | null> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.scheduleId !== 'string' || !UUID.test(request.scheduleId)) return null;
    const { rows } = await this.#database.query<ScheduleRow>(
      `WITH cancelled AS (
         UPDATE switchyard.schedules SET status = 'cancelled', cancelled_at = now(), next_fire_at = NULL
         WHERE id = $1 AND agent_id = $2 AND status = 'active'
         RETURNING ${SCHEDULE_COLUMNS})
       SELECT ${SCHEDULE_COLUMNS} FROM cancelled
       UNION ALL
       SELECT ${SCHEDULE_COLUMNS} FROM switchyard.schedules
       WHERE id = $1 AND agent_id = $2 AND NOT EXISTS (SELECT 1 FROM cancelled)`,
      [request.scheduleId, agentId],
    );
    const row = rows[0];
    return row === undefined ? null : toScheduleRecord(row, this.#now());
  }

  /**
   * The recent runs of the agent's schedules `scheduleIds`, from the run ledger: per schedule the
   * newest `limit` (default 10, at most 100) by slot, newest first, each with the newest turn that
   * ran it.
   *
   * Contract: returns only `agentId`'s runs; ids that are not UUIDs name no schedule and are skipped.
   */
  async listRuns(request: {
    agentId: string;
    scheduleIds: readonly string[];
    limit?: number;
  }): Promise<ScheduleRunRecord[]> {
    const agentId = checkAgentId(request.agentId);
    const limit = checkLimit(request.limit, 100, 10);
    const scheduleIds = request.scheduleIds.filter((id) => typeof id === 'string' && UUID.test(id));
    if (scheduleIds.length === 0) return [];
    const { rows } = await this.#database.query<{
      id: string;
      schedule_id: string;
      slot: Date;
      enqueued_at: Date;
      status: ScheduleRunRecord['status'];
      attempts: number;
      error: string | null;
    }>(
      `SELECT r.id, r.schedule_id, r.slot, r.enqueued_at, r.status, r.attempts, r.error
         FROM unnest($2::uuid[]) AS wanted(id)
         CROSS JOIN LATERAL (
           SELECT id, schedule_id, slot, enqueued_at, status, attempts, error
             FROM switchyard.schedule_runs
            WHERE schedule_id = wanted.id AND agent_id = $1
            ORDER BY slot DESC LIMIT $3) r
        ORDER BY r.schedule_id, r.slot DESC`,
      [agentId, scheduleIds, limit],
    );
    if (rows.length === 0) return [];
    // The turns that ran them: one pass over the agent's scheduled turns (no index on source_id).
    const turns = await this.#database.query<{ source_id: string; id: string }>(
      `SELECT DISTINCT ON (source_id) source_id, id FROM switchyard.turns
        WHERE agent_id = $1 AND source = 'schedule' AND source_id = ANY($2::text[])
        ORDER BY source_id, created_at DESC, id DESC`,
      [agentId, rows.map((row) => row.id)],
    );
    const turnOf = new Map(turns.rows.map((row) => [row.source_id, row.id]));
    return rows.map((row) => {
      const turnId = turnOf.get(row.id);
      return {
        id: row.id,
        scheduleId: row.schedule_id,
        slot: new Date(row.slot).toISOString(),
        firedAt: new Date(row.enqueued_at).toISOString(),
        status: row.status,
        attempts: row.attempts,
        ...(row.error === null ? {} : { error: row.error }),
        ...(turnId === undefined ? {} : { turnId }),
      };
    });
  }
}
