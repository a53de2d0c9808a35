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
