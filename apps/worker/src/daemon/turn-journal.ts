import type { TurnJournalStore } from '@switchyard/control-plane';
import type { TurnJournal } from '@switchyard/core';
import type { DaemonTurnRecords } from './daemon-turn-types';
import type { ResumeState } from './turn-checkpoint';
import type { TurnEntry } from './turn-entry';

type JournalWrite =
  | { kind: 'response'; entry: Parameters<TurnJournal['response']>[0] }
  | { kind: 'callStarted'; entry: Parameters<TurnJournal['callStarted']>[0] }
  | { kind: 'callFinished'; entry: Parameters<TurnJournal['callFinished']>[0] };

/** Hands one kept entry to the journal that writes it. */
function writeTo(journal: TurnJournal, write: JournalWrite): Promise<void> {
  if (write.kind === 'response') return journal.response(write.entry);
  if (write.kind === 'callStarted') return journal.callStarted(write.entry);
  return journal.callFinished(write.entry);
}

/**
 * The journal of a turn under `serve.journal: false`: its entries are kept in memory (nothing is
 * written) until `keep` is called, the moment a call of the turn is first held for approval; then
 * they are all written (the store's journal opened by `open`), and every later one writes through.
 * A held turn is so continued from its journal like any other, and a turn that never holds a call
 * writes nothing. The entries kept are the loop's own (its transcript holds the same in memory).
 *
 * Contract: `keep` resolves once every entry so far is stored (called again, it waits for the same
 * writes), and rejects when they cannot be (the call is then not held); an entry given while `keep`
 * is under way is written after it. A write after a failed `keep` rejects with its error.
 */
export function heldTurnJournal(open: () => Promise<TurnJournal>): {
  journal: TurnJournal;
  keep(): Promise<void>;
} {
  let kept: JournalWrite[] = [];
  let target: TurnJournal | undefined;
  let keeping: Promise<TurnJournal> | undefined;
  const write = (next: JournalWrite): Promise<void> => {
    if (target !== undefined) return writeTo(target, next);
    if (keeping !== undefined) return keeping.then((journal) => writeTo(journal, next));
    kept.push(next);
    return Promise.resolve();
  };
  const keep = async (): Promise<void> => {
    keeping ??= (async () => {
      const journal = await open();
      const writes = kept;
      kept = [];
      // Rows are keyed by kind and position: the order they land in does not matter.
      await Promise.all(writes.map((entry) => writeTo(journal, entry)));
      target = journal;
      return journal;
    })();
    await keeping;
  };
  return {
    journal: {
      response: (entry) => write({ kind: 'response', entry }),
      callStarted: (entry) => write({ kind: 'callStarted', entry }),
      callFinished: (entry) => write({ kind: 'callFinished', entry }),
    },
    keep,
  };
}

/**
 * `journal`, writing nothing once the turn is let go (released at shutdown, taken over): what its
 * aborted loop still ends (the held call's "aborted while it waited" output) is not the turn's, and
 * whoever continues it must reach the held call again.
 */
function untilLetGo(journal: TurnJournal, entry: TurnEntry): TurnJournal {
  const kept = (write: () => Promise<void>) => (entry.letGo === undefined ? write() : Promise.resolve());
  return {
    ...(journal.recorded === undefined ? {} : { recorded: journal.recorded }),
    response: (response) => kept(() => journal.response(response)),
    callStarted: (call) => kept(() => journal.callStarted(call)),
    callFinished: (call) => kept(() => journal.callFinished(call)),
  };
}

/** What `openTurnJournal` opens a turn's journal with. */
interface TurnJournalOptions {
  journals?: Pick<TurnJournalStore, 'open'>;
  records: DaemonTurnRecords | undefined;
  workerId: string;
  entry: TurnEntry;
  turnId: string;
  resume: ResumeState | undefined;
  fresh?: boolean;
  heldOnly?: boolean;
  log?: (line: string) => void;
}

/**
 * The journal a turn's loop writes (with `journals` and `records`), with what earlier attempts recorded
 * (a turn resumed after its worker stopped, a unit's next attempt, a turn continued after its held
 * call was answered), logged when there is any. A turn this process recorded just now as a first
 * attempt (`fresh`) has nothing recorded yet: its journal opens without reading. With `heldOnly`
 * (`serve.journal: false`), a new turn's journal is kept in memory until a call of it is held
 * (`heldTurnJournal`, its `keep` set as `entry.keepJournal`); a continued turn, which held one, reads
 * and writes its journal as usual. The upgrade path: a turn continued from an older worker's
 * transcript checkpoint (`resume.items`) reads nothing, and its steps are recorded numbered after the
 * checkpoint's. Nothing is written once the turn is let go (`untilLetGo`). Undefined: no journal.
 */
export async function openTurnJournal(options: TurnJournalOptions): Promise<TurnJournal | undefined> {
  const journal = await openJournalOf(options);
  return journal === undefined ? undefined : untilLetGo(journal, options.entry);
}

/** `openTurnJournal` but for `untilLetGo`. */
async function openJournalOf(options: TurnJournalOptions): Promise<TurnJournal | undefined> {
  const { journals, turnId, workerId } = options;
  if (journals === undefined || options.records === undefined) return undefined;
  if (options.heldOnly === true && options.resume === undefined) {
    const held = heldTurnJournal(
      async () => (await journals.open({ turnId, workerId, fresh: true })).journal,
    );
    options.entry.keepJournal = held.keep;
    return held.journal;
  }
  const started = performance.now();
  const legacy = options.resume?.items !== undefined;
  const opened = await journals.open({
    turnId,
    workerId,
    ...((options.fresh === true && options.resume === undefined) || legacy ? { fresh: true } : {}),
  });
  const { journal } = opened;
  if (legacy) {
    const offset = options.entry.offset.iterations;
    return {
      response: (response) => journal.response({ ...response, iteration: response.iteration + offset }),
      callStarted: (call) => journal.callStarted(call),
      callFinished: (call) => journal.callFinished(call),
    };
  }
  if (opened.recorded === undefined) return journal;
  const { responses, started: calls, outputs } = opened.counts;
  options.log?.(
    `switchyard serve: turn ${turnId} goes on from its journal: ${responses} model response(s) and ${outputs} tool output(s) recorded, ${calls - outputs} call(s) in doubt (read in ${Math.round(performance.now() - started)} ms)`,
  );
  return { ...journal, recorded: opened.recorded };
}
