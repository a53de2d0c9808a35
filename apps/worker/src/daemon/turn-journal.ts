import type { TurnJournalStore } from '@switchyard/control-plane';
import type { TurnJournal } from '@switchyard/core';
import type { DaemonTurnRecords } from './daemon-turn-types';
import type { ResumeState } from './turn-checkpoint';
import type { TurnEntry } from './turn-entry';

/**
 * The journal a turn's loop writes (with `journals` and `records`), with what earlier attempts recorded
 * (a turn resumed after its worker stopped, a unit's next attempt), logged when there is any. A turn
 * continued after an approval from its checkpoint goes on from the checkpoint's transcript instead:
 * its steps are recorded numbered after the checkpoint's. A turn this process recorded just now as a
 * first attempt (`fresh`) has nothing recorded yet: its journal opens without reading. Undefined: no
 * journal.
 */
export async function openTurnJournal(options: {
  journals?: Pick<TurnJournalStore, 'open'>;
  records: DaemonTurnRecords | undefined;
  workerId: string;
  entry: TurnEntry;
  turnId: string;
  resume: ResumeState | undefined;
  fresh?: boolean;
  log?: (line: string) => void;
}): Promise<TurnJournal | undefined> {
  const { journals, turnId } = options;
  if (journals === undefined || options.records === undefined) return undefined;
  const started = performance.now();
  const opened = await journals.open({
    turnId,
    workerId: options.workerId,
    ...(options.fresh === true && options.resume === undefined ? { fresh: true } : {}),
  });
  const { journal } = opened;
  if (options.resume !== undefined) {
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
