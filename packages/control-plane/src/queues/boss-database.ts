import { createRequire } from 'node:module';
import type { Database } from '../database/database';

// pg-boss's statement texts, built as its manager builds them (`plans.js`), so the two it runs
// without awaiting are recognised exactly.
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as {
  completeJobs(schema: string): string;
  failJobsById(schema: string): string;
};

/**
 * The database pg-boss is given. pg-boss 10 completes or fails a job after its worker's handler
 * without awaiting it (`manager.js`, `work()`): a database error there (a lost connection, a
 * failover, an embedded database whose directory went away) would be an unhandled rejection, which
 * ends the process. The errors of those two statements go to `onError` instead, and the statement
 * answers that it affected nothing: the job stays active and, like any delivery whose end was lost,
 * is delivered again once it expires (the queues are at-least-once). Every other statement is
 * passed through as it is.
 */
export function bossDatabase(
  database: Pick<Database, 'executeSql'>,
  schema: string,
  onError: (error: unknown) => void,
): Pick<Database, 'executeSql'> {
  const unawaited = new Set([plans.completeJobs(schema), plans.failJobsById(schema)]);
  return {
    executeSql: async (text, values) => {
      try {
        return await database.executeSql(text, values);
      } catch (error) {
        if (!unawaited.has(text)) throw error;
        onError(error);
        return { rows: [{ count: '0' }] };
      }
    },
  };
}
