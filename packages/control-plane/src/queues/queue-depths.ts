import type { SqlExecutor } from '../database/database';

/** How much work waits in one queue. */
export interface QueueDepth {
  /** The pg-boss queue name (e.g. `switchyard.turn-requests.ada`). */
  queue: string;
  /** Jobs waiting: created, or waiting to retry. */
  waiting: number;
  /** Age of the oldest waiting job in seconds (0 when none waits). */
  oldestWaitingSeconds: number;
}

// pg-boss 10's queue and job tables: every queue is reported, an empty one as 0 (a gauge that
// vanished when its queue drained would read as "no data", not as "nothing waiting"). One grouped
// scan, not one per queue.
const WAITING_JOBS = `
  SELECT q.name, count(j.id)::int AS depth,
         coalesce(extract(epoch FROM clock_timestamp() - min(j.created_on)), 0)::float8 AS oldest_age
    FROM pgboss.queue q
    LEFT JOIN pgboss.job j ON j.name = q.name AND j.state IN ('created', 'retry')
   GROUP BY q.name
   ORDER BY q.name`;

/** Every queue with its waiting jobs and the age of the oldest, in one scan. */
export async function queueDepths(database: SqlExecutor): Promise<QueueDepth[]> {
  const { rows } = await database.query<{ name: string; depth: number; oldest_age: number }>(WAITING_JOBS);
  return rows.map((row) => ({
    queue: row.name,
    waiting: row.depth,
    oldestWaitingSeconds: Math.max(0, row.oldest_age),
  }));
}
