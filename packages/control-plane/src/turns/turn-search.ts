import type { Database } from '../database/database';
import { CURSOR_TIME, isUtcTime } from '../database/page-rows';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText } from '../values/check-stored-value';
import type { TurnCursor, TurnRecord } from './turn-record';
import { recordOfTurnRow, TURN_COLUMNS, type TurnRow } from './turn-rows';

/** The most turns one search (`ListTurnsOptions.text`) reads, past its cursor, before it answers. */
export const TURN_SEARCH_SCAN_ROWS = 2000;
/** How much of each prompt a search reads: its first characters. */
export const TURN_SEARCH_PROMPT_CHARACTERS = 4096;
/** The longest search text, in bytes of UTF-8. */
const MAX_SEARCH_TEXT_BYTES = 200;

/**
 * The turns' filters of `page`, as SQL over `switchyard.turns`: `$1` agent, `$2` status, `$3` agents,
 * `$4` source, `$5`/`$6` the cursor, `$7`/`$8` the start of the time range (inclusive) and its end
 * (exclusive). The `(created_at, id)` index orders and bounds every scan.
 */
export const TURN_FILTERS = `($1::text IS NULL OR agent_id = $1) AND ($2::text IS NULL OR status = $2)
  AND ($3::text[] IS NULL OR agent_id = ANY($3::text[])) AND ($4::text IS NULL OR source = $4)
  AND ($5::timestamptz IS NULL OR (created_at, id) < ($5::timestamptz, $6::text))
  AND ($7::timestamptz IS NULL OR created_at >= $7::timestamptz)
  AND ($8::timestamptz IS NULL OR created_at < $8::timestamptz)`;

/**
 * The time range of a page of turns, checked: ISO 8601 UTC times that exist, `createdAfter` not
 * after `createdBefore`.
 *
 * Contract: throws `ControlPlaneInputError` naming `createdAfter` or `createdBefore`.
 */
export function checkTimeRange(options: { createdAfter?: string; createdBefore?: string }): {
  after: string | null;
  before: string | null;
} {
  const after = options.createdAfter ?? null;
  const before = options.createdBefore ?? null;
  for (const [field, value] of [
    ['createdAfter', after],
    ['createdBefore', before],
  ] as const) {
    if (value !== null && !isUtcTime(value)) {
      throw new ControlPlaneInputError(field, 'must be an ISO 8601 UTC time that exists');
    }
  }
  if (after !== null && before !== null && Date.parse(after) > Date.parse(before)) {
    throw new ControlPlaneInputError('createdBefore', 'must not be before createdAfter');
  }
  return { after, before };
}

/**
 * A search text, checked: 1 to 200 bytes of storable text (no NUL, no lone surrogate).
 *
 * Contract: throws `ControlPlaneInputError` naming `text`.
 */
export function checkSearchText(text: unknown): string {
  return checkStoredText('text', text, { maxBytes: MAX_SEARCH_TEXT_BYTES });
}

/**
 * The query of a search's first step: the ids and cursor times of at most `$10` turns past the
 * cursor that pass the filters, newest first, each with whether the first characters of its prompt
 * hold `$9`, both lower-cased by the database (so both sides follow one collation's rules). Linear in the rows read, each read to a bounded prefix.
 */
const SEARCH_SCAN = `SELECT id, ${CURSOR_TIME},
    strpos(lower(left(prompt, ${TURN_SEARCH_PROMPT_CHARACTERS})), lower($9)) > 0 AS matched
  FROM switchyard.turns WHERE ${TURN_FILTERS}
  ORDER BY created_at DESC, id DESC LIMIT $10`;

/** One row a search read: its id, its cursor time and whether it matched. */
interface ScannedTurn {
  id: string;
  cursor_time: string;
  matched: boolean;
}

/**
 * The page a search's scanned rows make: the ids of at most `limit` matches, and the next cursor:
 * after the last match shown when more matched, after the last row read when the scan stopped at its
 * bound (older turns may match: the next page goes on from there), none when every row was read.
 */
export function searchPageOf(
  scanned: readonly ScannedTurn[],
  limit: number,
  scanRows: number,
): { ids: string[]; next?: { createdAt: string; id: string } } {
  const matches = scanned.filter((row) => row.matched);
  const shown = matches.slice(0, limit);
  const last =
    matches.length > limit ? shown.at(-1) : scanned.length >= scanRows ? scanned.at(-1) : undefined;
  return {
    ids: shown.map((row) => row.id),
    ...(last === undefined ? {} : { next: { createdAt: last.cursor_time, id: last.id } }),
  };
}

/**
 * A page of the turns that pass `filters` (`TURN_FILTERS`' parameters) and whose prompt holds `text`
 * (`checkSearchText`), case-insensitively: at most `TURN_SEARCH_SCAN_ROWS` turns past the cursor are read
 * (their ids and a flag, not their rows), then the rows of the matches shown.
 */
export async function searchTurns(
  database: Database,
  filters: readonly unknown[],
  text: string,
  limit: number,
): Promise<{ turns: TurnRecord[]; next?: TurnCursor }> {
  const { rows: scanned } = await database.query<ScannedTurn>(SEARCH_SCAN, [
    ...filters,
    text,
    TURN_SEARCH_SCAN_ROWS,
  ]);
  const { ids, next } = searchPageOf(scanned, limit, TURN_SEARCH_SCAN_ROWS);
  const { rows } =
    ids.length === 0
      ? { rows: [] as TurnRow[] }
      : await database.query<TurnRow>(
          `SELECT ${TURN_COLUMNS} FROM switchyard.turns WHERE id = ANY($1::text[]) ORDER BY created_at DESC, id DESC`,
          [ids],
        );
  return { turns: rows.map(recordOfTurnRow), ...(next === undefined ? {} : { next }) };
}
