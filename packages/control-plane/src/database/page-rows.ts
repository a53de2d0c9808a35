import { ControlPlaneInputError } from '../errors/control-plane-input-error';

// Newest-first pages of a table with `created_at` and `id` (approvals, turns): a page query selects
// `limit + 1` rows, one more than asked, which says whether there is a next page.

/**
 * The select item for a row's cursor time: its exact `created_at` (microseconds) as ISO 8601 UTC. A
 * millisecond cursor would skip rows created within the same millisecond.
 */
export const CURSOR_TIME = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_time`;

/**
 * The size of a page: an integer from 1 to 500, 50 when absent.
 *
 * Contract: throws `ControlPlaneInputError` on `limit` otherwise.
 */
export function checkPageLimit(limit: number | undefined): number {
  const checked = limit ?? 50;
  if (!Number.isInteger(checked) || checked < 1 || checked > 500) {
    throw new ControlPlaneInputError('limit', `must be an integer from 1 to 500, got ${String(checked)}`);
  }
  return checked;
}

const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;

/**
 * Whether `value` is an ISO 8601 UTC time (to the microsecond at most) of an instant that exists: a
 * real day of a year from 1 to 9999 and a real time of day. PostgreSQL refuses the 30th of February
 * or hour 99 with an error of its own; refused here, they are the caller's mistake, named.
 */
export function isUtcTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const parts = UTC_TIME.exec(value);
  if (parts === null) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  // Day 0 of the next month is the last day of this one (set apart: Date.UTC reads years below 100 as 19xx).
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return day >= 1 && day <= last.getUTCDate();
}

/**
 * A page cursor (`before`: the `createdAt` and `id` of the last row of the previous page), checked
 * before it reaches a query.
 *
 * Contract: throws `ControlPlaneInputError` on `<field>.createdAt` unless it is an existing ISO 8601
 * UTC time (`isUtcTime`), and on `<field>.id` unless it matches `idPattern`; on `field` for a value
 * that is not an object.
 */
export function checkPageCursor(
  cursor: unknown,
  idPattern: RegExp,
  field = 'before',
): { createdAt: string; id: string } {
  if (typeof cursor !== 'object' || cursor === null) {
    throw new ControlPlaneInputError(field, 'must be the cursor of a previous page');
  }
  const { createdAt, id } = cursor as { createdAt?: unknown; id?: unknown };
  if (!isUtcTime(createdAt)) {
    throw new ControlPlaneInputError(`${field}.createdAt`, 'must be an ISO 8601 UTC time that exists');
  }
  if (typeof id !== 'string' || !idPattern.test(id)) {
    throw new ControlPlaneInputError(`${field}.id`, `must be an id matching ${idPattern.source}`);
  }
  return { createdAt, id };
}

/** The rows of a page query cut to the page, and the cursor of the next page when there is one. */
export function cutPage<TRow extends { cursor_time: string; id: string }>(
  rows: TRow[],
  limit: number,
): { rows: TRow[]; next?: { createdAt: string; id: string } } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page,
    ...(rows.length > limit && last !== undefined
      ? { next: { createdAt: last.cursor_time, id: last.id } }
      : {}),
  };
}
