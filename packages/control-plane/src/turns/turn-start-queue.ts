import { CoalescedStatements, type WaitingItem } from '../database/coalesced-statements';
import type { SqlExecutor } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { TURN_COLUMNS, type TurnRow } from './turn-rows';

/** One checked turn start waiting to be recorded. */
export interface TurnStartRow {
  id: string;
  agentId: string;
  source: string;
  sourceId: string | null;
  attempt: number | null;
  prompt: string;
  workerId: string;
  /** The row's size in bytes, as its batch's limit counts it (the prompt's, mostly). */
  bytes: number;
}

/** The most starts one statement records. */
const MAX_ROWS_PER_STATEMENT = 500;
/** The most bytes one statement carries (a larger start goes alone). */
const MAX_BYTES_PER_STATEMENT = 4 * 1024 * 1024;
/** Statements in flight at once; starts that arrive meanwhile go together in the next one. */
const MAX_STATEMENTS_IN_FLIGHT = 2;

// Every start of the batch in one statement; an id already recorded is left out of the answer.
const INSERT_STARTS = `INSERT INTO switchyard.turns (id, agent_id, source, source_id, attempt, prompt, worker_id)
   SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[])
   ON CONFLICT (id) DO NOTHING RETURNING ${TURN_COLUMNS}`;

/**
 * The turn starts of a process, coalesced as the journal's writes are (`JournalWriteQueue`): a start
 * is recorded at once while fewer than two statements are under way, and starts that arrive meanwhile
 * go together in the next one. A burst of `POST /v1/turns` costs a round trip per batch, not per turn;
 * alone, a start costs what it did.
 *
 * Contract: `record` resolves with the turn's row once it is stored, and rejects with
 * `ControlPlaneInputError` on `id` when that id is already recorded (or waiting in this queue), or
 * with the statement's error (none of its batch recorded).
 */
export class TurnStartQueue {
  readonly #database: SqlExecutor;
  readonly #statements: CoalescedStatements<TurnStartRow, TurnRow>;

  constructor(database: SqlExecutor) {
    this.#database = database;
    this.#statements = new CoalescedStatements((batch) => this.#send(batch), {
      maxRows: MAX_ROWS_PER_STATEMENT,
      maxBytes: MAX_BYTES_PER_STATEMENT,
      maxInFlight: MAX_STATEMENTS_IN_FLIGHT,
    });
  }

  /** Records one start with the rest of whatever is waiting; see the class's contract. */
  record(start: TurnStartRow): Promise<TurnRow> {
    if (this.#statements.waiting((waiting) => waiting.id === start.id)) {
      return Promise.reject(alreadyRecorded(start.id));
    }
    return this.#statements.add(start);
  }

  async #send(batch: ReadonlyArray<WaitingItem<TurnStartRow, TurnRow>>): Promise<void> {
    let recorded: Map<string, TurnRow>;
    try {
      const { rows } = await this.#database.query<TurnRow>(INSERT_STARTS, [
        batch.map(({ item }) => item.id),
        batch.map(({ item }) => item.agentId),
        batch.map(({ item }) => item.source),
        batch.map(({ item }) => item.sourceId),
        batch.map(({ item }) => item.attempt),
        batch.map(({ item }) => item.prompt),
        batch.map(({ item }) => item.workerId),
      ]);
      recorded = new Map(rows.map((row) => [row.id, row]));
    } catch (error) {
      for (const start of batch) start.reject(error);
      return;
    }
    for (const { item, resolve, reject } of batch) {
      const row = recorded.get(item.id);
      if (row === undefined) reject(alreadyRecorded(item.id));
      else resolve(row);
    }
  }
}

function alreadyRecorded(id: string): ControlPlaneInputError {
  return new ControlPlaneInputError('id', `turn '${id}' is already recorded`);
}
