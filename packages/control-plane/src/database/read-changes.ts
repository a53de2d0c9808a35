import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import type { SqlExecutor } from './database';
import { isUtcTime } from './page-rows';

/** What a change feed is asked: changes at or after `since`, of some agents or all, at most `limit`. */
export interface ChangesOptions {
  /** ISO 8601 UTC time (the database's) of the oldest change wanted. */
  since: string;
  /** Only these agents' rows; all agents' when absent. */
  agentIds?: readonly string[];
  /** At most this many rows: 1 to 1000, 200 when absent. */
  limit?: number;
}

/**
 * One page of a change feed over `table` (which has `updated_at`, `agent_id` and `id`): its rows
 * changed at or after `since`, oldest change first, and the database's clock after reading them,
 * the `since` of the next page. The approvals and turns feeds share it.
 *
 * Contract: throws `ControlPlaneInputError` on `since` when it is not an existing ISO 8601 UTC time
 * (`isUtcTime`), and on an agent id that is not one.
 */
export async function readChanges<TRow>(
  database: SqlExecutor,
  table: string,
  columns: string,
  options: ChangesOptions,
): Promise<{ rows: TRow[]; now: string }> {
  if (!isUtcTime(options.since)) {
    throw new ControlPlaneInputError('since', 'must be an ISO 8601 UTC time');
  }
  const agentIds =
    options.agentIds === undefined ? null : options.agentIds.map((agent) => checkAgentId(agent));
  const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? 200)), 1000);
  const { rows } = await database.query<TRow>(
    `SELECT ${columns} FROM ${table}
      WHERE updated_at >= $1::timestamptz AND ($2::text[] IS NULL OR agent_id = ANY($2::text[]))
      ORDER BY updated_at, id LIMIT $3`,
    [options.since, agentIds, limit],
  );
  const { rows: clock } = await database.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return { rows, now: new Date(clock[0]?.now ?? Date.now()).toISOString() };
}
