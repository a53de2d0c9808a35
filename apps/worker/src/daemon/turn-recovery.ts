import type { ApprovalStore, ResumableTurn, TurnRecord, TurnStore } from '@switchyard/control-plane';
import { ZERO_USAGE } from '@switchyard/core/internal';
import type { DaemonApprovalStore } from './daemon-approvals';
import type { DaemonTurnContext } from './daemon-turn-types';
import { definedFields } from './defined-fields';
import { errorMessage } from './error-message';
import { upgradeRecordedEvents } from './recorded-events';
import {
  checkpointOf,
  isLegacyCheckpoint,
  type ResumeState,
  readCheckpoint,
  resumeKey,
  type StoredCheckpoint,
} from './turn-checkpoint';
import { createTurnEntry, type TurnEntry, turnSignalOf } from './turn-entry';
import { snapshotOf } from './turn-registry';

// Recovery and claiming: a turn whose process stopped is marked interrupted (its unit handed back to
// its queue), and a turn left waiting for approval (let go at shutdown, or its process dead) is
// claimed by one live process once answered and continued there from its journal.

/** A turn claimed from another process, as this one continues it. */
export interface ContinuedTurn {
  /** Its entry: snapshot, events, offsets and time spent as its checkpoint has them; `running`. */
  entry: TurnEntry;
  /** The context its tools and instructions are built from (`signal` is the entry's). */
  context: DaemonTurnContext;
  /** Its checkpoint, or undefined when it is missing or unreadable (the turn cannot go on then). */
  checkpoint: StoredCheckpoint | undefined;
}

/** The context a turn taken over from its record is built from (its tools, instructions, telemetry). */
function contextOfRecord(record: TurnRecord, signal: AbortSignal): DaemonTurnContext {
  return {
    agentId: record.agentId,
    prompt: record.prompt,
    source: record.source,
    ...definedFields(record, ['sourceId', 'attempt']),
    turnId: record.id,
    signal,
  };
}

/**
 * The entry of a claimed turn: the snapshot of its record, `running`, with the time it ran spent
 * from its time limit. Its events, usage and iterations are filled again as its journal is replayed
 * (the replayed steps marked so). The upgrade path (a `LegacyCheckpoint`): the checkpoint's events,
 * usage and iterations, and the part another process ran as the offset.
 */
export function continuedTurnOf(claimed: ResumableTurn, turnTimeoutMs: number | undefined): ContinuedTurn {
  const record = claimed.turn;
  const checkpoint = readCheckpoint(claimed.checkpoint);
  const legacy = isLegacyCheckpoint(checkpoint) ? checkpoint : undefined;
  const entry = createTurnEntry(
    {
      ...snapshotOf(record),
      status: 'running',
      usage: legacy?.usage ?? ZERO_USAGE,
      iterations: legacy?.iterations ?? 0,
    },
    turnTimeoutMs,
  );
  entry.events = legacy === undefined ? [] : upgradeRecordedEvents(legacy.events);
  entry.offset = { iterations: legacy?.iterations ?? 0, usage: legacy?.usage ?? ZERO_USAGE };
  entry.resumeContext = checkpoint?.context;
  if (checkpoint !== undefined && entry.deadline !== undefined) entry.deadline.spend(checkpoint.activeMs);
  entry.signal = turnSignalOf(entry, undefined);
  const context = contextOfRecord(record, entry.signal);
  return { entry, context, checkpoint };
}

/**
 * The entry and context of an API turn whose worker stopped mid-turn, taken over here to be resumed
 * from its journal: its record's snapshot, `running` again, with a fresh time limit (its journal's
 * replayed steps fill its events and usage again).
 */
export function interruptedTurnOf(
  record: TurnRecord,
  turnTimeoutMs: number | undefined,
): { entry: TurnEntry; context: DaemonTurnContext } {
  const entry = createTurnEntry({ ...snapshotOf(record), status: 'running' }, turnTimeoutMs);
  entry.signal = turnSignalOf(entry, undefined);
  const context = contextOfRecord(record, entry.signal);
  return { entry, context };
}

/**
 * Where a continued turn's loop goes on from: its prompt and its journal, its held calls' decisions
 * by `resumeKey` (each acted on once), and `instructions` (the turn's own rebuilt ones, else the
 * checkpoint's). The upgrade path (a `LegacyCheckpoint`): the checkpoint's transcript and the calls
 * it says were let run with no output. Without a checkpoint: an empty transcript (the turn fails).
 */
export function resumeStateOf(
  claimed: ResumableTurn,
  checkpoint: StoredCheckpoint | undefined,
  instructions: string | undefined,
): ResumeState {
  if (checkpoint === undefined) {
    return { items: [], approvals: new Map(), started: new Set(), instructions: undefined };
  }
  return {
    ...(isLegacyCheckpoint(checkpoint) ? { items: checkpoint.items } : {}),
    approvals: new Map(claimed.approvals.map((approval) => [resumeKey(approval), approval])),
    started: new Set(isLegacyCheckpoint(checkpoint) ? checkpoint.started : []),
    instructions: instructions ?? checkpoint.instructions,
  };
}

/**
 * Why a claimed turn cannot go on, or undefined when it can: its checkpoint is missing or unreadable,
 * or (not an older worker's transcript checkpoint) this worker has no journal to replay its steps
 * from, and the loop would ask the model for them again.
 */
export function whyNotContinued(
  checkpoint: StoredCheckpoint | undefined,
  hasJournal: boolean,
): string | undefined {
  if (checkpoint === undefined) {
    return 'the turn could not be continued: its stored checkpoint is missing or unreadable';
  }
  if (!isLegacyCheckpoint(checkpoint) && !hasJournal) {
    return 'the turn could not be continued: this worker has no turn journal to replay it from';
  }
  return undefined;
}

/** The log line of a turn continued here: which turn, whose, from where, and its approvals' outcomes. */
export function describeContinuation(claimed: ResumableTurn): string {
  const record = claimed.turn;
  const source = `${record.source}${record.sourceId === undefined ? '' : ` ${record.sourceId}`}`;
  const approvals = claimed.approvals.map((approval) => `${approval.toolKey} ${approval.status}`).join(', ');
  return `switchyard serve: continuing turn ${record.id} of agent ${record.agentId} (${source}) after its approval${claimed.approvals.length === 1 ? '' : 's'}: ${approvals}`;
}

/**
 * Lets a turn waiting for approval go at shutdown: its checkpoint (its time spent so far; its steps
 * are in its journal) is stored and it is marked released, so whichever worker claims it once answered continues
 * it; here its loop is aborted and its end is not recorded. Resolves false when the records say it is
 * not this worker's waiting turn (then it is left as it is).
 *
 * Contract: never rejects. When the release cannot be written the turn is let go all the same (logged):
 * it stays waiting in the records and is continued once its heartbeat goes stale.
 */
export async function releaseHeldTurn(
  entry: TurnEntry,
  options: {
    store: Pick<DaemonApprovalStore, 'release'>;
    workerId: string;
    /** Lets it go and aborts its loop (`TurnRegistry.letGo`). */
    letGo: (entry: TurnEntry, letGo: 'released', reason: Error) => void;
    log?: (line: string) => void;
  },
): Promise<boolean> {
  try {
    const released = await options.store.release({
      turnId: entry.snapshot.id,
      workerId: options.workerId,
      checkpoint: checkpointOf(entry),
    });
    if (!released) return false;
  } catch (error) {
    options.log?.(`switchyard serve: could not let ${entry.snapshot.id} go: ${errorMessage(error)}`);
  }
  options.letGo(entry, 'released', new Error('the worker shut down while the turn waited for approval'));
  return true;
}

/**
 * Marks the turns of workers that stopped heartbeating `staleAfterMs` ago (died) interrupted, which
 * hands the unit each one ran back to its queue, and logs which, and what became of each unit. The
 * turns of `workerId` (this process) are left alone.
 */
export async function sweepInterruptedTurns(options: {
  records: Pick<TurnStore, 'markInterrupted'>;
  workerId: string;
  staleAfterMs: number;
  /** The agents whose API turns are resumed (claimed, never marked), by this process or another. */
  resumedApiAgents?: readonly string[];
  log: (line: string) => void;
}): Promise<void> {
  const marked = await options.records.markInterrupted({
    staleAfterMs: options.staleAfterMs,
    exceptWorkerId: options.workerId,
    ...(options.resumedApiAgents === undefined ? {} : { leaveApiTurnsOf: options.resumedApiAgents }),
  });
  if (marked.length > 0) {
    const ids = marked.map((record) => record.id).join(', ');
    options.log(
      `switchyard serve: marked ${marked.length} turn(s) interrupted (their worker stopped): ${ids}`,
    );
  }
  for (const { id, recovery } of marked) {
    if (recovery === undefined) continue;
    options.log(
      `switchyard serve: recovery: ${recovery.unit} ${recovery.unitId}, attempt ${recovery.attempt} (turn ${id}, previous worker ${recovery.previousWorkerId}): ${recovery.outcome}: ${recovery.description}`,
    );
  }
}

/**
 * Takes over the API turns of `agentIds` whose worker stopped heartbeating `staleAfterMs` ago and
 * resumes each here from its journal (`turns.resumeInterrupted`). One process takes a turn, however
 * many look at once; the turns of this process are left alone.
 */
export async function resumeInterruptedTurns(options: {
  records: Pick<TurnStore, 'claimInterrupted'>;
  turns: { readonly workerId: string; resumeInterrupted(record: TurnRecord): unknown };
  staleAfterMs: number;
  agentIds: readonly string[];
}): Promise<void> {
  const claimed = await options.records.claimInterrupted({
    staleAfterMs: options.staleAfterMs,
    workerId: options.turns.workerId,
    exceptWorkerId: options.turns.workerId,
    agentIds: options.agentIds,
    sources: ['api'],
  });
  for (const record of claimed) options.turns.resumeInterrupted(record);
}

/**
 * Claims the turns of `agentIds` left waiting for approval by a process that stopped (let go at
 * shutdown, or not heartbeating for `staleAfterMs`) once they are answered, and continues each here
 * (`turns.resume`). One process claims a turn, however many look at once.
 */
export async function continueAnsweredTurns(options: {
  store: Pick<ApprovalStore, 'claimResumable'>;
  turns: { readonly workerId: string; resume(claimed: ResumableTurn): Promise<unknown> };
  staleAfterMs: number;
  agentIds: readonly string[];
}): Promise<void> {
  const claimed = await options.store.claimResumable({
    workerId: options.turns.workerId,
    staleAfterMs: options.staleAfterMs,
    agentIds: options.agentIds,
  });
  for (const turn of claimed) await options.turns.resume(turn);
}
