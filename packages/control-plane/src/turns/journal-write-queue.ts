import { CoalescedStatements, type WaitingItem } from '../database/coalesced-statements';
import type { SqlExecutor } from '../database/database';
import { TurnJournalFencedError } from '../errors/turn-journal-fenced-error';

/** One journal row waiting to be written, and the loop waiting for it. */
export interface JournalWrite {
  turnId: string;
  workerId: string;
  kind: 'response' | 'call-start' | 'call-output';
  position: number;
  /** The entry's JSON text. */
  text: string;
  /** Its size in bytes (counted once, where the entry's limit is checked). */
  bytes: number;
}

/** The most rows one statement carries. */
export const MAX_ROWS_PER_STATEMENT = 500;
/** The most entry bytes one statement carries (a larger entry goes alone). */
export const MAX_BYTES_PER_STATEMENT = 4 * 1024 * 1024;
/**
 * Statements in flight at once: one. Writes that arrive while it runs wait and go together in the
 * next: at tens of turns at once that is a few rows a statement instead of one, less work for the
 * worker's thread and the database, and the turn's wait for its row overlaps the budget's statement of
 * the same step (see core's loop). PGlite runs one statement at a time anyway.
 */
export const MAX_STATEMENTS_IN_FLIGHT = 1;

// Every row, and the check that its turn is still its worker's, in one statement: a row whose turn
// ended or was taken over by another worker is not written, and its turn is missing from the answer.
// Rows go in in their order of arrival, so of two writes of one position the first is kept.
const APPEND_ROWS = `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[]) WITH ORDINALITY
       AS i (turn_id, worker_id, kind, position, entry, arrival)
   ), owner AS (
     SELECT DISTINCT i.turn_id, i.worker_id FROM input i
       JOIN switchyard.turns t
         ON t.id = i.turn_id AND t.worker_id = i.worker_id AND t.status IN ('running', 'waiting-approval')
   ), written AS (
     INSERT INTO switchyard.turn_journal (turn_id, kind, position, entry)
     SELECT i.turn_id, i.kind, i.position, i.entry
       FROM input i JOIN owner o ON o.turn_id = i.turn_id AND o.worker_id = i.worker_id
      ORDER BY i.arrival
     ON CONFLICT DO NOTHING RETURNING turn_id
   )
   SELECT turn_id, worker_id FROM owner`;

/**
 * The journal writes of every turn of a process, coalesced: a write goes at once while fewer than
 * `MAX_STATEMENTS_IN_FLIGHT` statements are under way, and writes that arrive meanwhile wait and go
 * together in the next one (at most `MAX_ROWS_PER_STATEMENT` rows and `MAX_BYTES_PER_STATEMENT`
 * bytes). With many turns in flight this turns one round trip per entry into one per batch; alone,
 * a write costs what it did.
 *
 * Contract: `append` resolves once its row is in the table (or was there already: the first write
 * of a position is kept), and rejects with `TurnJournalFencedError` when its turn is no longer
 * running on its worker (nothing of it written), or with the statement's error (none of the batch
 * written). Each write is checked and written in the same statement as the rest of its batch.
 */
export class JournalWriteQueue {
  readonly #database: SqlExecutor;
  readonly #statements: CoalescedStatements<JournalWrite, void>;

  constructor(database: SqlExecutor) {
    this.#database = database;
    this.#statements = new CoalescedStatements((batch) => this.#send(batch), {
      maxRows: MAX_ROWS_PER_STATEMENT,
      maxBytes: MAX_BYTES_PER_STATEMENT,
      maxInFlight: MAX_STATEMENTS_IN_FLIGHT,
    });
  }

  /** Writes one row with the rest of whatever is waiting; see the class's contract. */
  append(write: JournalWrite): Promise<void> {
    return this.#statements.add(write);
  }

  async #send(batch: ReadonlyArray<WaitingItem<JournalWrite, void>>): Promise<void> {
    let owned: Set<string>;
    try {
      const { rows } = await this.#database.query<{ turn_id: string; worker_id: string }>(
        APPEND_ROWS,
        [
          batch.map(({ item }) => item.turnId),
          batch.map(({ item }) => item.workerId),
          batch.map(({ item }) => item.kind),
          batch.map(({ item }) => item.position),
          batch.map(({ item }) => item.text),
        ],
        // The hottest statement of a busy worker: parsed and planned once per connection.
        { name: 'switchyard-journal-append' },
      );
      owned = new Set(rows.map((row) => ownerKey(row.turn_id, row.worker_id)));
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    for (const { item, resolve, reject } of batch) {
      if (owned.has(ownerKey(item.turnId, item.workerId))) resolve();
      else reject(new TurnJournalFencedError(item.turnId, item.workerId));
    }
  }
}

function ownerKey(turnId: string, workerId: string): string {
  return `${turnId}\u0000${workerId}`;
}
