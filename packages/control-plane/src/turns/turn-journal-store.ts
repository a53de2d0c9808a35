import type { RecordedTurn, TurnJournal } from '@switchyard/core';
import type { Database } from '../database/database';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { checkStoredText } from '../values/check-stored-value';
import { JournalWriteQueue } from './journal-write-queue';

type JournalKind = 'response' | 'call-start' | 'call-output';

const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
/** The largest `position` the table's integer column holds. */
const MAX_POSITION = 2_147_483_647;

/** What `open` gives a turn: the journal to pass to `runAgentLoop`, and what an earlier attempt left. */
export interface OpenedTurnJournal {
  /** Writes this worker's entries; each write fails once the turn is no longer this worker's. */
  journal: TurnJournal;
  /** Entries of earlier attempts (this turn's, or the interrupted attempt `resumeFrom` names). */
  recorded: RecordedTurn | undefined;
  /** How many entries were found: responses, calls started, outputs. */
  counts: { responses: number; started: number; outputs: number };
}

/**
 * The control plane's turn journals (core's `TurnJournal`): one append-only table, rows keyed by turn,
 * kind and position (a response's step, a call's item index), each entry the JSON text the loop gave,
 * so a resume replays exactly what was recorded.
 *
 * Contract: a write lands only while the turn is `running` or `waiting-approval` on the worker that
 * writes it (a worker taken for dead cannot add to a turn another worker resumed): otherwise it
 * rejects with `TurnJournalFencedError` (see `JournalWriteQueue`), which ends that worker's run of the turn. Writing an entry
 * that is there already (an in-doubt call started again) keeps the first. An entry over
 * `maxEntryBytes` rejects naming its size.
 */
export class TurnJournalStore {
  /** Every turn's writes, coalesced into few statements when many turns write at once. */
  readonly #writes: JournalWriteQueue;

  /** Use `controlPlane.journals` rather than constructing one. */
  constructor(
    private readonly database: Database,
    private readonly maxEntryBytes: number,
  ) {
    this.#writes = new JournalWriteQueue(database);
  }

  /**
   * The journal of turn `turnId` as worker `workerId` runs it, with what earlier attempts recorded.
   * A unit's attempt (a turn with `attempt` > 1) gets the entries of the latest earlier attempt of
   * its unit that recorded any copied to its own first, in one statement, so it goes on where that one
   * stopped: whatever that attempt's status (interrupted; or ended, when its worker died before the
   * queue heard of the end and the queue delivered the unit again; or marked interrupted and then
   * given its real end by a worker that was only slow), and across attempts that recorded nothing (a
   * delivery whose process died before its turn opened its journal). A first attempt's journal opens
   * in one statement (its attempt and entries read together); a later attempt's in three (that read,
   * the copy, then the entries again). With `fresh`, the caller says it recorded the turn itself just
   * now as a first attempt (no entry can exist yet): nothing is read, and the journal opens without a
   * statement.
   *
   * Writes of every turn of the store go through one queue: while statements are under way, the
   * entries other turns write meanwhile go together in the next one (each still checked against its
   * turn's worker in that statement), so many turns in flight cost few round trips.
   *
   * @example
   * const { journal, recorded } = await controlPlane.journals.open({ turnId, workerId });
   * const run = runAgentLoop({ model, tools, input, turnId, journal: { ...journal, recorded } });
   */
  async open(options: { turnId: string; workerId: string; fresh?: boolean }): Promise<OpenedTurnJournal> {
    const turnId = checkId('turnId', options.turnId);
    const workerId = checkStoredText('workerId', options.workerId, { maxBytes: 200 });
    const append = (kind: JournalKind, position: number, entry: unknown) =>
      this.#append(turnId, workerId, kind, position, entry);
    const journal: TurnJournal = {
      response: (entry) => append('response', entry.iteration, entry),
      callStarted: (entry) => append('call-start', entry.itemIndex, entry),
      callFinished: (entry) => append('call-output', entry.itemIndex, entry),
    };
    if (options.fresh === true) {
      return { journal, recorded: undefined, counts: { responses: 0, started: 0, outputs: 0 } };
    }
    // One statement for most turns (a first attempt): the turn's attempt with what it recorded. A
    // unit's later attempt first gets the interrupted attempt's entries copied, then is read again.
    const { rows } = await this.database.query<{
      attempt: number | null;
      kind: JournalKind | null;
      entry: string | null;
    }>(
      `SELECT t.attempt, j.kind, j.entry
         FROM switchyard.turns t
         LEFT JOIN switchyard.turn_journal j ON j.turn_id = t.id
        WHERE t.id = $1
        ORDER BY j.kind, j.position`,
      [turnId],
    );
    const attempt = rows[0]?.attempt ?? null;
    const recorded =
      attempt !== null && attempt > 1
        ? await this.#copyInterrupted(turnId)
        : recordedOf(
            rows.flatMap(({ kind, entry }) => (kind === null || entry === null ? [] : [{ kind, entry }])),
          );
    const counts = {
      responses: recorded.responses.length,
      started: recorded.started.length,
      outputs: recorded.outputs.length,
    };
    const empty = counts.responses + counts.started + counts.outputs === 0;
    return { journal, recorded: empty ? undefined : recorded, counts };
  }

  /** Everything recorded for turn `turnId`, in order (responses by step, calls by item). */
  async read(turnId: string): Promise<RecordedTurn> {
    const id = checkId('turnId', turnId);
    const { rows } = await this.database.query<{ kind: JournalKind; entry: string }>(
      `SELECT kind, entry FROM switchyard.turn_journal WHERE turn_id = $1 ORDER BY kind, position`,
      [id],
    );
    return recordedOf(rows);
  }

  /**
   * Copies to unit attempt `turnId` the entries of the latest earlier attempt of its unit that
   * recorded any (in one statement; entries already there are kept), then reads what it has. One
   * attempt's entries, never a mix: two attempts that overlapped (a worker taken for dead that was
   * only slow) may have recorded different answers for the same step.
   */
  async #copyInterrupted(turnId: string): Promise<RecordedTurn> {
    await this.database.query(
      `INSERT INTO switchyard.turn_journal (turn_id, kind, position, entry)
       SELECT $1, j.kind, j.position, j.entry
         FROM switchyard.turn_journal j
        WHERE j.turn_id = (
          SELECT p.id
            FROM switchyard.turns t
            JOIN switchyard.turns p
              ON p.agent_id = t.agent_id AND p.source = t.source AND p.source_id = t.source_id
             AND p.attempt < t.attempt
           WHERE t.id = $1 AND t.attempt > 1
             AND EXISTS (SELECT 1 FROM switchyard.turn_journal e WHERE e.turn_id = p.id)
           ORDER BY p.attempt DESC, p.created_at DESC, p.id DESC
           LIMIT 1)
       ON CONFLICT DO NOTHING`,
      [turnId],
    );
    return this.read(turnId);
  }

  async #append(
    turnId: string,
    workerId: string,
    kind: JournalKind,
    position: number,
    entry: unknown,
  ): Promise<void> {
    // The column is a 4-byte integer: a position past it would fail the whole batch it went with.
    if (!Number.isSafeInteger(position) || position < 0 || position > MAX_POSITION) {
      throw new ControlPlaneInputError(
        'position',
        `must be an integer from 0 to ${MAX_POSITION}, got ${String(position)}`,
      );
    }
    const text = JSON.stringify(entry);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxEntryBytes) {
      throw new ControlPlaneInputError(
        'entry',
        `a ${kind} entry of ${bytes} bytes is over the journal's limit of ${this.maxEntryBytes} bytes`,
      );
    }
    // The write and the check that the turn is still this worker's are one statement (with other
    // turns' writes waiting at the same time).
    await this.#writes.append({ turnId, workerId, kind, position, text, bytes });
  }
}

/** Journal rows (ordered by kind and position) as core's `RecordedTurn`. */
function recordedOf(rows: ReadonlyArray<{ kind: JournalKind; entry: string }>): RecordedTurn {
  const responses: RecordedTurn['responses'][number][] = [];
  const started = new Map<number, RecordedTurn['started'][number]>();
  const outputs: RecordedTurn['outputs'][number][] = [];
  for (const row of rows) {
    const entry = JSON.parse(row.entry);
    if (row.kind === 'response') {
      responses.push(entry);
      // The starts recorded with a response (`JournalResponse.started`) are calls started like any
      // other; a call in doubt started again has a row of its own too, with the same key.
      for (const start of Array.isArray(entry.started) ? entry.started : []) {
        if (!started.has(start.itemIndex)) started.set(start.itemIndex, start);
      }
    } else if (row.kind === 'call-start') {
      if (!started.has(entry.itemIndex)) started.set(entry.itemIndex, entry);
    } else outputs.push(entry);
  }
  return { responses, started: [...started.values()].sort((a, b) => a.itemIndex - b.itemIndex), outputs };
}

function checkId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !TURN_ID.test(value)) {
    throw new ControlPlaneInputError(field, `must be a turn id, got ${JSON.stringify(value)}`);
  }
  return value;
}
