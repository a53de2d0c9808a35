import type { Database } from '../database/database';
import { CURSOR_TIME, checkPageCursor, checkPageLimit, cutPage } from '../database/page-rows';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkAgentId } from '../schedules/agent-id';
import type { ListTurnsOptions, TurnCursor, TurnRecord } from './turn-record';
import { recordOfTurnRow, TURN_COLUMNS, type TurnRow } from './turn-rows';
import { checkSearchText, checkTimeRange, searchTurns, TURN_FILTERS } from './turn-search';

/**
 * `TurnStore.page`: one page of recorded turns, newest first, and the cursor of the next page, the
 * options checked against the store's `known` statuses, sources and id pattern.
 *
 * Contract: throws `ControlPlaneInputError` naming the option when bad (see `TurnStore.page`).
 */
export async function pageTurns(
  database: Database,
  options: ListTurnsOptions,
  known: { statuses: ReadonlySet<string>; sources: ReadonlySet<string>; turnId: RegExp },
): Promise<{ turns: TurnRecord[]; next?: TurnCursor }> {
  const agentId = options.agentId === undefined ? null : checkAgentId(options.agentId);
  const agentIds =
    options.agentIds === undefined
      ? null
      : options.agentIds.map((agent, index) => checkAgentId(agent, `agentIds[${index}]`));
  if (options.status !== undefined && !known.statuses.has(options.status)) {
    throw new ControlPlaneInputError('status', `must be one of ${[...known.statuses].join(', ')}`);
  }
  if (options.source !== undefined && !known.sources.has(options.source)) {
    throw new ControlPlaneInputError('source', `must be one of ${[...known.sources].join(', ')}`);
  }
  const before = options.before === undefined ? undefined : checkPageCursor(options.before, known.turnId);
  const limit = checkPageLimit(options.limit);
  const range = checkTimeRange(options);
  const filters = [
    agentId,
    options.status ?? null,
    agentIds,
    options.source ?? null,
    before?.createdAt ?? null,
    before?.id ?? null,
    range.after,
    range.before,
  ];
  if (options.text !== undefined) {
    return searchTurns(database, filters, checkSearchText(options.text), limit);
  }
  const { rows } = await database.query<TurnRow & { cursor_time: string }>(
    `SELECT ${TURN_COLUMNS}, ${CURSOR_TIME}
       FROM switchyard.turns WHERE ${TURN_FILTERS}
      ORDER BY created_at DESC, id DESC LIMIT $9`,
    [...filters, limit + 1],
  );
  const { rows: page, next } = cutPage(rows, limit);
  return { turns: page.map(recordOfTurnRow), ...(next === undefined ? {} : { next }) };
}
