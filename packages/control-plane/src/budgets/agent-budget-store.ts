import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { RateLimitedError } from '../errors/rate-limited-error';
import { checkAgentId } from '../schedules/agent-id';

/** Work an agent starts that is counted against an hourly limit. */
export type AgentStartKind = 'schedule' | 'schedule-fire' | 'workflow' | 'background-job';

/** An agent's hourly limits on starting work (absent: none), as the worker's `budgets` names them. */
export interface AgentStartLimits {
  /** Schedules created in any hour. */
  schedulesPerHour?: number;
  /** Fires of its schedules in any hour; a fire past it waits. */
  scheduleFiresPerHour?: number;
  /** Workflows started in any hour. */
  workflowsPerHour?: number;
  /** Background jobs started in any hour. */
  backgroundJobsPerHour?: number;
}

/** The limits of an agent by its id (`ControlPlaneOptions.startLimits`). */
export type AgentStartLimitsOf = (agentId: string) => AgentStartLimits | undefined;

/** What an agent spent and runs now, as `usage` reads it. */
export interface AgentUsageRecord {
  /** The agent. */
  agentId: string;
  /** Tokens its turns spent in the last 24 hours (a rolling window, by minute). */
  tokensLastDay: number;
  /** Its turns running now with a slot (counted against turns at once). */
  runningTurns: number;
  /** Its running turns still waiting for a slot. */
  waitingTurns: number;
  /** What it started in the last hour (a rolling window, by minute). */
  startedLastHour: Record<AgentStartKind, number>;
  /** The database's time of the reading (ISO 8601). */
  now: string;
}

/** The configuration's name of each kind's limit: what a refusal names. */
const LIMIT_OF_KIND: Readonly<Record<AgentStartKind, keyof AgentStartLimits>> = {
  schedule: 'schedulesPerHour',
  'schedule-fire': 'scheduleFiresPerHour',
  workflow: 'workflowsPerHour',
  'background-job': 'backgroundJobsPerHour',
};

const NOUN_OF_KIND: Readonly<Record<AgentStartKind, string>> = {
  schedule: 'schedules created',
  'schedule-fire': 'schedule fires',
  workflow: 'workflows started',
  'background-job': 'background jobs started',
};

const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** Rows of a minute older than this many minutes before now count in no window and are pruned. */
const THIS_MINUTE = "date_trunc('minute', clock_timestamp())";

/** The limit `limit` checked as a count: a positive safe integer, or absent. */
function checkLimit(field: string, limit: unknown): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    throw new ControlPlaneInputError(field, `must be an integer >= 1, got ${String(limit)}`);
  }
  return limit;
}

/**
 * Each agent's spending and concurrency, counted in the database so every process on it holds one
 * agent's limits together: tokens by minute (`recordTokens`, `tokensLastDay`), work started by kind
 * and minute (`countStart`, inside the transaction that stores the start), and the turns that hold a
 * slot among the agent's turns at once (`admitTurn`).
 *
 * Contract: bad agent ids, turn ids and limits throw `ControlPlaneInputError` naming the field. A
 * start past its hourly limit throws `RateLimitedError` and counts nothing (its transaction rolls
 * back whole). Starts and admissions of one agent are serialised by a transaction-scoped advisory
 * lock, so two processes never both take the last unit of a limit.
 */
export class AgentBudgetStore {
  readonly #database: Database;
  readonly #limitsOf: AgentStartLimitsOf;
  /** Per agent: the write of tokens under way (settled, never rejects), and the batch that goes next. */
  readonly #tokenWrites = new Map<string, Promise<void>>();
  readonly #nextTokenWrite = new Map<string, { tokens: number; written: Promise<void> }>();
  /** Per agent: tokens recorded through this store, and the reading of the last day under way. */
  readonly #recordedHere = new Map<string, number>();
  readonly #readings = new Map<string, { recordedBefore: number; tokens: Promise<number> }>();

  /** Use `controlPlane.budgets` rather than constructing one. */
  constructor(database: Database, limitsOf: AgentStartLimitsOf = () => undefined) {
    this.#database = database;
    this.#limitsOf = limitsOf;
  }

  /** The hourly start limits of `agentId`, as the control plane was opened with. */
  startLimitsOf(agentId: string): AgentStartLimits {
    return this.#limitsOf(agentId) ?? {};
  }

  /**
   * Adds `tokens` an agent's turn spent (one model response's usage) to its current minute, in one
   * statement that also prunes its minutes older than 25 hours. Resolves once they are stored.
   *
   * Writes of one agent are coalesced: at most one statement per agent is under way in this
   * process, and tokens recorded while it runs are added together and stored by the next one (many
   * turns in flight write one row update a round trip, not one each).
   */
  async recordTokens(agentId: string, tokens: number): Promise<void> {
    const agent = checkAgentId(agentId);
    if (!Number.isSafeInteger(tokens) || tokens < 0) {
      throw new ControlPlaneInputError('tokens', `must be an integer >= 0, got ${String(tokens)}`);
    }
    if (tokens === 0) return;
    this.#recordedHere.set(agent, (this.#recordedHere.get(agent) ?? 0) + tokens);
    let batch = this.#nextTokenWrite.get(agent);
    if (batch === undefined) {
      const opened: { tokens: number; written: Promise<void> } = { tokens: 0, written: Promise.resolve() };
      const previous = this.#tokenWrites.get(agent) ?? Promise.resolve();
      // The batch takes tokens until its statement starts: after the one under way, or on the next microtask.
      opened.written = previous.then(() => {
        this.#nextTokenWrite.delete(agent);
        return this.#writeTokens(agent, opened.tokens);
      });
      const settled = opened.written.then(
        () => {},
        () => {},
      );
      this.#tokenWrites.set(agent, settled);
      void settled.then(() => {
        if (this.#tokenWrites.get(agent) === settled) this.#tokenWrites.delete(agent);
      });
      this.#nextTokenWrite.set(agent, opened);
      batch = opened;
    }
    batch.tokens += tokens;
    return batch.written;
  }

  async #writeTokens(agent: string, tokens: number): Promise<void> {
    await this.#database.query(
      `WITH pruned AS (
         DELETE FROM switchyard.agent_token_usage
          WHERE agent_id = $1 AND minute < ${THIS_MINUTE} - interval '25 hours'
       )
       INSERT INTO switchyard.agent_token_usage (agent_id, minute, tokens)
       VALUES ($1, ${THIS_MINUTE}, $2)
       ON CONFLICT (agent_id, minute) DO UPDATE SET tokens = switchyard.agent_token_usage.tokens + excluded.tokens`,
      [agent, tokens],
    );
  }

  /**
   * Tokens the agent's turns spent in the last 24 hours (this minute and the 1439 before it).
   *
   * `shareUnderWay`: a reading of this agent already under way in this process is used, plus the
   * tokens recorded here since it began (so this process never counts less than it spent itself),
   * instead of a statement of its own: the checks of many turns in flight share one round trip.
   * Tokens another process stores while a reading is under way show in the next one, as they would
   * for a reading of its own that began a moment earlier.
   */
  async tokensLastDay(agentId: string, options: { shareUnderWay?: boolean } = {}): Promise<number> {
    const agent = checkAgentId(agentId);
    const recordedHere = () => this.#recordedHere.get(agent) ?? 0;
    let reading = options.shareUnderWay === true ? this.#readings.get(agent) : undefined;
    if (reading === undefined) {
      const taken = { recordedBefore: recordedHere(), tokens: this.#readTokens(agent) };
      reading = taken;
      this.#readings.set(agent, taken);
      const done = () => {
        if (this.#readings.get(agent) === taken) this.#readings.delete(agent);
      };
      taken.tokens.then(done, done);
    }
    return (await reading.tokens) + (recordedHere() - reading.recordedBefore);
  }

  async #readTokens(agent: string): Promise<number> {
    const { rows } = await this.#database.query<{ tokens: string | number }>(
      `SELECT coalesce(sum(tokens), 0)::bigint AS tokens FROM switchyard.agent_token_usage
        WHERE agent_id = $1 AND minute > ${THIS_MINUTE} - interval '24 hours'`,
      [agent],
    );
    return Number(rows[0]?.tokens ?? 0);
  }

  /**
   * Counts one start of `kind` for `agentId` inside `transaction` (the one storing the start), when
   * the agent has a limit on it; throws `RateLimitedError` when the last hour already holds that many.
   */
  async countStart(transaction: SqlExecutor, agentId: string, kind: AgentStartKind): Promise<void> {
    const refused = await this.tryCountStart(transaction, agentId, kind);
    if (refused !== undefined) throw refused;
  }

  /**
   * `countStart` that answers a refusal instead of throwing it (the scheduler delays a fire with it
   * and goes on with the other schedules of its transaction). Undefined: counted, or no limit.
   */
  async tryCountStart(
    transaction: SqlExecutor,
    agentId: string,
    kind: AgentStartKind,
  ): Promise<RateLimitedError | undefined> {
    const field = LIMIT_OF_KIND[kind];
    const limit = checkLimit(field, this.startLimitsOf(agentId)[field]);
    if (limit === undefined) return undefined;
    await transaction.query(
      "SELECT pg_advisory_xact_lock(hashtext('switchyard.agent-starts:' || $1 || ':' || $2))",
      [agentId, kind],
    );
    const { rows } = await transaction.query<{ used: number; retry_after: number | null }>(
      `SELECT coalesce(sum(count), 0)::int AS used,
              ceil(extract(epoch FROM min(minute) + interval '60 minutes' - clock_timestamp()))::int AS retry_after
         FROM switchyard.agent_starts
        WHERE agent_id = $1 AND kind = $2 AND minute > ${THIS_MINUTE} - interval '1 hour'`,
      [agentId, kind],
    );
    const used = rows[0]?.used ?? 0;
    if (used >= limit) {
      const retryAfterSeconds = Math.max(1, rows[0]?.retry_after ?? 60);
      return new RateLimitedError(
        field,
        `this agent is at its limit of ${limit} ${NOUN_OF_KIND[kind]} per hour (${field}): ${used} in the last hour; try again in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
    await transaction.query(
      `WITH pruned AS (
         DELETE FROM switchyard.agent_starts
          WHERE agent_id = $1 AND kind = $2 AND minute < ${THIS_MINUTE} - interval '2 hours'
       )
       INSERT INTO switchyard.agent_starts (agent_id, kind, minute, count) VALUES ($1, $2, ${THIS_MINUTE}, 1)
       ON CONFLICT (agent_id, kind, minute) DO UPDATE SET count = switchyard.agent_starts.count + 1`,
      [agentId, kind],
    );
    return undefined;
  }

  /**
   * Gives running turn `turnId` of `agentId` a slot among the agent's turns at once when one is free
   * (or it has one already: a resumed turn keeps its own); otherwise marks it delayed by
   * `turnsAtOnce` (its record's `limitedBy`). Resolves with whether it holds a slot now, and how many
   * of the agent's turns do.
   */
  async admitTurn(request: {
    turnId: string;
    agentId: string;
    turnsAtOnce: number;
  }): Promise<{ admitted: boolean; running: number }> {
    const agentId = checkAgentId(request.agentId);
    if (typeof request.turnId !== 'string' || !TURN_ID.test(request.turnId)) {
      throw new ControlPlaneInputError(
        'turnId',
        `must match ${TURN_ID}, got ${JSON.stringify(request.turnId)}`,
      );
    }
    const limit = checkLimit('turnsAtOnce', request.turnsAtOnce) as number;
    const admit = async (executor: SqlExecutor) => {
      // One statement: the turn's own slot, the agent's running turns with one, and the turn given a
      // slot when one is free, or marked delayed by turnsAtOnce (once: a waiting turn's next asks write nothing).
      const { rows } = await executor.query<{
        held: boolean | null;
        admitted: boolean | null;
        running: number;
      }>(
        `WITH own AS (
           SELECT admitted_at IS NOT NULL AS held FROM switchyard.turns WHERE id = $2
         ), running AS (
           SELECT count(*)::int AS n FROM switchyard.turns
            WHERE agent_id = $1 AND status = 'running' AND admitted_at IS NOT NULL
         ), updated AS (
           UPDATE switchyard.turns t
              SET admitted_at = CASE WHEN (SELECT n FROM running) < $3 THEN clock_timestamp() END,
                  limited_by = CASE WHEN (SELECT n FROM running) < $3 THEN t.limited_by
                                    ELSE array_append(t.limited_by, 'turnsAtOnce') END
            WHERE t.id = $2 AND t.status = 'running' AND t.admitted_at IS NULL
              AND ((SELECT n FROM running) < $3 OR NOT ('turnsAtOnce' = ANY(t.limited_by)))
           RETURNING admitted_at IS NOT NULL AS admitted
         )
         SELECT (SELECT held FROM own) AS held, (SELECT admitted FROM updated) AS admitted,
                (SELECT n FROM running) AS running`,
        [agentId, request.turnId, limit],
      );
      const row = rows[0];
      const running = row?.running ?? 0;
      if (row?.held === true) return { admitted: true, running };
      return row?.admitted === true ? { admitted: true, running: running + 1 } : { admitted: false, running };
    };
    // Embedded PGlite is one process's, on one connection: its statements never interleave, so the
    // statement alone is atomic. On a server, processes admit at once: a lock per agent orders them.
    if (this.#database.kind === 'pglite') return admit(this.#database);
    return this.#database.transaction(async (transaction) => {
      await transaction.query("SELECT pg_advisory_xact_lock(hashtext('switchyard.turns-at-once:' || $1))", [
        agentId,
      ]);
      return admit(transaction);
    });
  }

  /** What `agentId` spent and runs now, against the windows its limits count. */
  async usage(agentId: string): Promise<AgentUsageRecord> {
    const agent = checkAgentId(agentId);
    const { rows } = await this.#database.query<{
      tokens: string | number;
      running: number;
      waiting: number;
      starts: Record<string, number> | null;
      now: Date;
    }>(
      `SELECT
         (SELECT coalesce(sum(tokens), 0)::bigint FROM switchyard.agent_token_usage
           WHERE agent_id = $1 AND minute > ${THIS_MINUTE} - interval '24 hours') AS tokens,
         (SELECT count(*) FILTER (WHERE admitted_at IS NOT NULL)::int FROM switchyard.turns
           WHERE agent_id = $1 AND status = 'running') AS running,
         (SELECT count(*) FILTER (WHERE admitted_at IS NULL)::int FROM switchyard.turns
           WHERE agent_id = $1 AND status = 'running') AS waiting,
         (SELECT jsonb_object_agg(kind, used) FROM (
            SELECT kind, sum(count)::int AS used FROM switchyard.agent_starts
             WHERE agent_id = $1 AND minute > ${THIS_MINUTE} - interval '1 hour' GROUP BY kind) s) AS starts,
         clock_timestamp() AS now`,
      [agent],
    );
    const row = rows[0];
    const starts = row?.starts ?? {};
    return {
      agentId: agent,
      tokensLastDay: Number(row?.tokens ?? 0),
      runningTurns: row?.running ?? 0,
      waitingTurns: row?.waiting ?? 0,
      startedLastHour: {
        schedule: starts.schedule ?? 0,
        'schedule-fire': starts['schedule-fire'] ?? 0,
        workflow: starts.workflow ?? 0,
        'background-job': starts['background-job'] ?? 0,
      },
      now: (row?.now ?? new Date()).toISOString(),
    };
  }
}
