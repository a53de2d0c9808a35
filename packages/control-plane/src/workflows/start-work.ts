import { randomUUID } from 'node:crypto';
import type { Database, SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import { checkStoredText } from '../values/check-stored-value';
import type { WorkOrigin } from './work-turn';

/**
 * The first checks of a request to start work (a workflow or a background job): the agent's id, and
 * no `origin`, since a task or job turn submits its result rather than starting more work (which
 * could recurse without end). Returns the checked agent id.
 *
 * Contract: throws `ControlPlaneInputError` on `agentId` or `origin`.
 */
export function checkAgentMayStart(request: { agentId: string; origin?: WorkOrigin }, what: string): string {
  const agentId = checkAgentId(request.agentId);
  if (request.origin !== undefined) {
    throw new ControlPlaneInputError(
      'origin',
      `a workflow task or background job turn cannot start ${what}; submit your result instead`,
    );
  }
  return agentId;
}

/**
 * The idempotency key a start is stored under: the caller's, or a fresh `<prefix>:<uuid>` so that
 * each call without one starts new work.
 *
 * Contract: throws `ControlPlaneInputError` on `idempotencyKey` when it is not storable text of at
 * most 500 bytes.
 */
export function startIdempotencyKey(idempotencyKey: string | undefined, prefix: string): string {
  return checkStoredText('idempotencyKey', idempotencyKey ?? `${prefix}:${randomUUID()}`, { maxBytes: 500 });
}

/**
 * Stores a start once under its idempotency key and queues its work, in one transaction: `insert`
 * gives the statement storing the new row under a fresh id (it ends `ON CONFLICT (idempotency_key)
 * DO NOTHING RETURNING id`), and `queue` queues the work of a row it stored. Returns that id; when
 * `key` was stored already, queues nothing and returns the id stored under it in `table` (a repeated
 * call returns the work it started first), or the fresh id should that row be gone.
 */
export async function storeStartOnce(
  database: Database,
  table: string,
  key: string,
  insert: (id: string) => { text: string; values: readonly unknown[] },
  queue: (transaction: SqlExecutor, id: string) => Promise<void>,
): Promise<string> {
  const id = randomUUID();
  return database.transaction(async (transaction) => {
    const { text, values } = insert(id);
    const { rows } = await transaction.query(text, values);
    if (rows.length === 0) {
      const { rows: existing } = await transaction.query<{ id: string }>(
        `SELECT id FROM ${table} WHERE idempotency_key = $1`,
        [key],
      );
      return existing[0]?.id ?? id;
    }
    await queue(transaction, id);
    return id;
  });
}

/**
 * The work a start stored or found under its key, as the starting agent reads it back: null there
 * means the key holds another agent's work.
 *
 * Contract: throws `ControlPlaneInputError` on `idempotencyKey` when `record` is null.
 */
export function startedRecord<T>(record: T | null): T {
  if (record === null) throw new ControlPlaneInputError('idempotencyKey', 'belongs to another agent');
  return record;
}
