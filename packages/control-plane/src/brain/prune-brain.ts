import type { SqlExecutor } from '../database/database';
import { storedBytesSql } from './brain-usage';

/** What one prune removed. */
export interface BrainPruneRecord {
  /** Earlier versions removed (of pages still kept). */
  versions: number;
  /** Forgotten pages removed, each with the versions it had left. */
  pages: number;
}

/** Rows one statement removes: a prune holds no lock for long, and PGlite's one connection serves others in between. */
const BATCH = 500;

/**
 * Removes every earlier version replaced before `cutoff` and every page forgotten before it (with its
 * versions), whichever agent's, in statements of at most 500 rows, each updating the agents' usage by
 * what it removed (`RETURNING`): a concurrent write's room-making removing the same rows is never
 * counted twice.
 *
 * Contract: removes nothing newer than `cutoff`; resolves with the counts.
 */
export async function pruneBrain(database: SqlExecutor, cutoff: Date): Promise<BrainPruneRecord> {
  const pruned: BrainPruneRecord = { versions: 0, pages: 0 };
  for (;;) {
    const { rows } = await database.query<{ removed: number }>(
      `WITH doomed AS (
         SELECT page_id, version FROM switchyard.brain_page_versions WHERE replaced_at < $1
         ORDER BY replaced_at LIMIT ${BATCH}
       ), gone AS (
         DELETE FROM switchyard.brain_page_versions v USING doomed d
         WHERE v.page_id = d.page_id AND v.version = d.version
         RETURNING v.agent_id, ${storedBytesSql('v.body')} AS bytes
       ), freed AS (SELECT agent_id, sum(bytes) AS bytes, count(*) AS removed FROM gone GROUP BY agent_id),
       updated AS (
         UPDATE switchyard.brain_usage u SET bytes = u.bytes - f.bytes FROM freed f WHERE u.agent_id = f.agent_id
       )
       SELECT coalesce(sum(removed), 0)::int AS removed FROM freed`,
      [cutoff],
    );
    const removed = rows[0]?.removed ?? 0;
    pruned.versions += removed;
    if (removed < BATCH) break;
  }
  for (;;) {
    const { rows } = await database.query<{ removed: number }>(
      `WITH doomed AS (
         SELECT id FROM switchyard.brain_pages WHERE archived_at < $1 ORDER BY archived_at LIMIT ${BATCH}
       ), gone_versions AS (
         DELETE FROM switchyard.brain_page_versions v USING doomed d WHERE v.page_id = d.id
         RETURNING v.agent_id, ${storedBytesSql('v.body')} AS bytes
       ), gone_pages AS (
         DELETE FROM switchyard.brain_pages p USING doomed d WHERE p.id = d.id
         RETURNING p.agent_id, ${storedBytesSql('p.body')} AS bytes
       ), freed AS (
         SELECT agent_id, sum(bytes) AS bytes FROM (
           SELECT agent_id, bytes FROM gone_versions UNION ALL SELECT agent_id, bytes FROM gone_pages
         ) gone GROUP BY agent_id
       ), updated AS (
         UPDATE switchyard.brain_usage u SET bytes = u.bytes - f.bytes FROM freed f WHERE u.agent_id = f.agent_id
       )
       SELECT count(*)::int AS removed FROM gone_pages`,
      [cutoff],
    );
    const removed = rows[0]?.removed ?? 0;
    pruned.pages += removed;
    if (removed < BATCH) break;
  }
  return pruned;
}
