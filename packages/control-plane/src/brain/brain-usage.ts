import type { SqlExecutor } from '../database/database';
import { MIN_STORED_BYTES } from './brain-limits';

/** What one stored body counts against an agent's quota, in SQL: its UTF-8 bytes, at least `MIN_STORED_BYTES`. */
export const storedBytesSql = (body: string) => `greatest(octet_length(${body}), ${MIN_STORED_BYTES})`;

/** What one body counts against an agent's quota: its UTF-8 bytes, at least `MIN_STORED_BYTES`. */
export function storedBytes(body: string): number {
  return Math.max(Buffer.byteLength(body, 'utf8'), MIN_STORED_BYTES);
}

/** What an agent's Brain holds (`switchyard.brain_usage`). */
export interface BrainUsage {
  /** Active (not forgotten) pages. */
  pages: number;
  /** Bytes of every body stored: pages, forgotten ones and earlier versions, each at least `MIN_STORED_BYTES`. */
  bytes: number;
}

/**
 * Takes the agent's Brain lock until the transaction ends: its writes, forgets and room-making run one
 * at a time, so a quota check sees every earlier write and two writes cannot both pass it.
 */
export async function lockAgentBrain(transaction: SqlExecutor, agentId: string): Promise<void> {
  await transaction.query("SELECT pg_advisory_xact_lock(hashtext('switchyard.brain:' || $1))", [agentId]);
}

/** The agent's usage (none yet: nothing stored). */
export async function readUsage(transaction: SqlExecutor, agentId: string): Promise<BrainUsage> {
  const { rows } = await transaction.query<{ pages: number; bytes: string | number }>(
    'SELECT pages, bytes FROM switchyard.brain_usage WHERE agent_id = $1',
    [agentId],
  );
  const row = rows[0];
  return row === undefined ? { pages: 0, bytes: 0 } : { pages: row.pages, bytes: Number(row.bytes) };
}

/** Adds `pages` active pages and `bytes` stored bytes (either may be negative) to the agent's usage. */
export async function addUsage(
  transaction: SqlExecutor,
  agentId: string,
  pages: number,
  bytes: number,
): Promise<void> {
  await transaction.query(
    `INSERT INTO switchyard.brain_usage AS usage (agent_id, pages, bytes) VALUES ($1, $2, $3)
     ON CONFLICT (agent_id) DO UPDATE SET pages = usage.pages + $2, bytes = usage.bytes + $3`,
    [agentId, pages, bytes],
  );
}

/**
 * Frees at least `excess` stored bytes of the agent's history, oldest first: its earlier versions by
 * when they were replaced, then its forgotten pages (with what is left of their versions) by when they
 * were forgotten. Each removal updates the usage by what it actually removed (`RETURNING`), so a prune
 * running at the same time is never counted twice. Resolves with the bytes freed (less than `excess`
 * when the history is smaller).
 */
export async function freeHistory(
  transaction: SqlExecutor,
  agentId: string,
  excess: number,
): Promise<number> {
  const versions = await transaction.query<{ freed: string | number }>(
    `WITH ordered AS (
       SELECT page_id, version, ${storedBytesSql('body')} AS bytes,
              sum(${storedBytesSql('body')}) OVER (ORDER BY replaced_at, page_id, version) AS running
       FROM switchyard.brain_page_versions WHERE agent_id = $1
     ), gone AS (
       DELETE FROM switchyard.brain_page_versions v USING ordered o
       WHERE v.page_id = o.page_id AND v.version = o.version AND o.running - o.bytes < $2
       RETURNING ${storedBytesSql('v.body')} AS bytes
     ), freed AS (SELECT coalesce(sum(bytes), 0) AS bytes FROM gone),
     updated AS (
       UPDATE switchyard.brain_usage SET bytes = bytes - (SELECT bytes FROM freed) WHERE agent_id = $1
     )
     SELECT bytes AS freed FROM freed`,
    [agentId, excess],
  );
  const freedByVersions = Number(versions.rows[0]?.freed ?? 0);
  if (freedByVersions >= excess) return freedByVersions;
  const pages = await transaction.query<{ freed: string | number }>(
    `WITH ordered AS (
       SELECT p.id, ${storedBytesSql('p.body')} + coalesce(kept.bytes, 0) AS bytes,
              sum(${storedBytesSql('p.body')} + coalesce(kept.bytes, 0)) OVER (ORDER BY p.archived_at, p.id) AS running
       FROM switchyard.brain_pages p
       LEFT JOIN LATERAL (
         SELECT sum(${storedBytesSql('v.body')}) AS bytes FROM switchyard.brain_page_versions v WHERE v.page_id = p.id
       ) kept ON true
       WHERE p.agent_id = $1 AND p.archived_at IS NOT NULL
     ), doomed AS (SELECT id FROM ordered WHERE running - bytes < $2),
     gone_versions AS (
       DELETE FROM switchyard.brain_page_versions v USING doomed d WHERE v.page_id = d.id
       RETURNING ${storedBytesSql('v.body')} AS bytes
     ), gone_pages AS (
       DELETE FROM switchyard.brain_pages p USING doomed d WHERE p.id = d.id
       RETURNING ${storedBytesSql('p.body')} AS bytes
     ), freed AS (
       SELECT (SELECT coalesce(sum(bytes), 0) FROM gone_versions) + (SELECT coalesce(sum(bytes), 0) FROM gone_pages) AS bytes
     ), updated AS (
       UPDATE switchyard.brain_usage SET bytes = bytes - (SELECT bytes FROM freed) WHERE agent_id = $1
     )
     SELECT bytes AS freed FROM freed`,
    [agentId, excess - freedByVersions],
  );
  return freedByVersions + Number(pages.rows[0]?.freed ?? 0);
}
