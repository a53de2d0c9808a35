import type { ApprovalRecord } from '@switchyard/control-plane';
import type { AgentRunResult, AgentUsage } from '@switchyard/core';
import { addUsage, ZERO_USAGE } from '@switchyard/core/internal';
import type { DaemonTurnEvent, DaemonTurnSnapshot } from './daemon-turn-types';
import { TurnDeadline } from './turn-deadline';

/**
 * One turn of this process as the daemon's modules share it: the registry keeps it (`TurnRegistry`),
 * `DaemonTurns` runs its loop, the approval gate holds its calls (`ApprovalGate`), recovery lets it go
 * or fills it from a claimed turn (`turn-recovery.ts`). Each field says who writes it.
 */
export interface TurnEntry {
  /** What the API reports; the loop's events update it (`DaemonTurns`). */
  snapshot: DaemonTurnSnapshot;
  /** The events so far, text deltas of one request joined (`appendEvent`, through `TurnRegistry.push`). */
  events: DaemonTurnEvent[];
  /** Its size in memory's budget once it ended (`TurnRegistry.ended`); 0 while open. */
  retainedBytes: number;
  /** Followers of its live events (`TurnRegistry.follow`), cleared when it ends. */
  listeners: Set<(event: DaemonTurnEvent) => void>;
  /** Aborts the turn: a cancellation, shutdown, a take-over, a let-go. */
  controller: AbortController;
  /** Set right after the entry is created: the turn's final snapshot. */
  done?: Promise<DaemonTurnSnapshot>;
  /** The turn's time limit, paused while it waits for an approval. */
  deadline: TurnDeadline | undefined;
  /** Its calls held in this process, by item index (the gate). */
  held: Map<number, ApprovalRecord>;
  /** Calls of the current response the policy let run, by item index (the gate; cleared per response). */
  allowed: Set<number>;
  /** Calls running now, by item index (the loop's events). */
  inFlight: Set<number>;
  /** The turn's signal (the loop's). */
  signal: AbortSignal;
  /** Iterations and usage of the part of the turn another process ran (a continued turn). */
  offset: { iterations: number; usage: AgentUsage };
  /** The instructions the loop was given (stored in its checkpoint). */
  instructions: string | undefined;
  /** The request's `resumeContext` (stored in its checkpoint). */
  resumeContext: Record<string, unknown> | undefined;
  /** Resolves when the turn's unit was detached from its queue (its first held call). */
  detached: Promise<void>;
  /** Resolves `detached`. */
  markDetached(): void;
  /**
   * Let go at shutdown while it waited, or taken over by another worker: its end is not recorded
   * here. Set only by `TurnRegistry.letGo`, which keeps the count of open turns.
   */
  letGo: 'released' | 'taken-over' | undefined;
  /**
   * With `serve.journal: false`: writes the turn's journal entries kept in memory so far and has it
   * write through from then on (`DaemonTurns`); the gate calls it before a call of the turn is held,
   * so a held turn can be continued from its journal. Absent: the journal writes through already.
   */
  keepJournal?: () => Promise<void>;
}

/** A new open turn with `snapshot`, and a time limit of `turnTimeoutMs` when one is set. */
export function createTurnEntry(snapshot: DaemonTurnSnapshot, turnTimeoutMs: number | undefined): TurnEntry {
  const controller = new AbortController();
  let markDetached: () => void = () => {};
  const detached = new Promise<void>((resolve) => {
    markDetached = resolve;
  });
  return {
    snapshot,
    events: [],
    retainedBytes: 0,
    listeners: new Set(),
    controller,
    deadline: turnTimeoutMs === undefined ? undefined : new TurnDeadline(turnTimeoutMs),
    held: new Map(),
    allowed: new Set(),
    inFlight: new Set(),
    signal: controller.signal,
    offset: { iterations: 0, usage: ZERO_USAGE },
    instructions: undefined,
    resumeContext: undefined,
    detached,
    markDetached,
    letGo: undefined,
  };
}

/** Running or waiting in this process (not let go). */
export function isOpenTurn(entry: TurnEntry): boolean {
  return (
    entry.letGo === undefined &&
    (entry.snapshot.status === 'running' || entry.snapshot.status === 'waiting-approval')
  );
}

/** The signal the turn's loop runs with: its controller's, its time limit's and its source's, whichever aborts first. */
export function turnSignalOf(entry: TurnEntry, source: AbortSignal | undefined): AbortSignal {
  const signals = [entry.controller.signal];
  if (entry.deadline !== undefined) signals.push(entry.deadline.signal);
  if (source !== undefined) signals.push(source);
  return signals.length === 1 ? entry.controller.signal : AbortSignal.any(signals);
}

/** How the loop ended the turn, in its snapshot (a continued turn's earlier part added). */
export function applyLoopResult(entry: TurnEntry, result: AgentRunResult): void {
  entry.snapshot.status = result.status;
  entry.snapshot.output = result.output;
  entry.snapshot.usage = addUsage(entry.offset.usage, result.usage);
  entry.snapshot.iterations = result.iterations + entry.offset.iterations;
  if (result.error !== undefined) entry.snapshot.error = result.error.message;
  // The reason a final answer was cut off goes where operators look for why a turn did not complete.
  if (result.incompleteReason !== undefined) {
    entry.snapshot.error = `the final response was cut off (${result.incompleteReason})`;
  }
}
