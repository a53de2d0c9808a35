import type { ApprovalRecord } from '@switchyard/control-plane';
import type { AgentUsage } from '@switchyard/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { DaemonTurnEvent } from './daemon-turn-types';
import type { TurnEntry } from './turn-entry';

/**
 * What the daemon stores with a turn whose call is held: only what its journal does not hold. The
 * turn's steps (responses, outputs, calls started) are in its journal, which a continued turn replays
 * from its prompt; the checkpoint adds the time it ran, its instructions and its request's context.
 */
export interface TurnCheckpoint {
  /** 3 since a held turn continues from its journal; 1 and 2 carried the transcript (`LegacyCheckpoint`). */
  version: 3;
  /** Milliseconds the turn ran (its time limit goes on from there). */
  activeMs: number;
  /** The turn's instructions, as sent. */
  instructions?: string;
  /** The request's `resumeContext`. */
  context?: Record<string, unknown>;
}

/**
 * The upgrade path: the checkpoint a worker stored before held turns continued from their journal
 * (versions 1 and 2), read as version 2. Such a turn goes on from the checkpoint's transcript, its
 * steps recorded in its journal numbered after the checkpoint's. Only turns held by an older worker
 * when it was upgraded have one; nothing writes it any more.
 */
export interface LegacyCheckpoint {
  /** 2 since calls are named by their item index; 1 named them by call id. */
  version: 2;
  /** The transcript (`ToolCallRequest.transcript()`): its calls without an output are dispatched first. */
  items: ResponseInputItem[];
  /** Calls of the last response the policy let run, by the index of their item in `items`. */
  started: number[];
  /** The events so far (text deltas joined). */
  events: DaemonTurnEvent[];
  /** Model requests made so far. */
  iterations: number;
  /** Usage so far. */
  usage: AgentUsage;
  /** Milliseconds the turn ran. */
  activeMs: number;
  /** The turn's instructions, as sent. */
  instructions?: string;
  /** The request's `resumeContext`. */
  context?: Record<string, unknown>;
}

/** A stored checkpoint as this version reads it. */
export type StoredCheckpoint = TurnCheckpoint | LegacyCheckpoint;

/** What a continued turn brings from its checkpoint. */
export interface ResumeState {
  /**
   * The upgrade path only (a `LegacyCheckpoint`): the transcript the loop goes on from. Absent: the
   * loop starts from the turn's prompt and replays its journal.
   */
  items?: ResponseInputItem[];
  /** Decisions of the held calls, by `resumeKey`: each is acted on once, then deleted. */
  approvals: Map<string, ApprovalRecord>;
  /**
   * The upgrade path only: calls that were let run before and have no output, by item index (each
   * decided once, then deleted). From a journal, core marks such calls in doubt instead.
   */
  started: Set<number>;
  /** The instructions the loop goes on with. */
  instructions: string | undefined;
}

/** The checkpoint of a turn with a held call: what its journal does not hold. */
export function checkpointOf(entry: TurnEntry): TurnCheckpoint {
  return {
    version: 3,
    activeMs: entry.deadline?.activeMs() ?? 0,
    ...(entry.instructions === undefined ? {} : { instructions: entry.instructions }),
    ...(entry.resumeContext === undefined ? {} : { context: entry.resumeContext }),
  };
}

/** Whether a stored checkpoint is one of an older worker (it carries the turn's transcript). */
export function isLegacyCheckpoint(checkpoint: StoredCheckpoint | undefined): checkpoint is LegacyCheckpoint {
  return checkpoint?.version === 2;
}

/**
 * A stored checkpoint as this version reads it, or undefined when it is not one. A version 1
 * checkpoint (a process of an older worker held the call) named the calls let run by call id: each
 * is the unanswered call of the transcript with that id.
 */
export function readCheckpoint(value: unknown): StoredCheckpoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as { version?: unknown; activeMs?: unknown };
  if (stored.version === 3) {
    const activeMs = typeof stored.activeMs === 'number' && stored.activeMs >= 0 ? stored.activeMs : 0;
    return { ...(value as TurnCheckpoint), activeMs };
  }
  return readLegacyCheckpoint(value);
}

/** The upgrade path: a version 1 or 2 checkpoint, read as version 2. */
function readLegacyCheckpoint(value: unknown): LegacyCheckpoint | undefined {
  const checkpoint = value as
    | (Omit<Partial<LegacyCheckpoint>, 'version' | 'started'> & { version?: unknown; started?: unknown[] })
    | null;
  if (
    typeof checkpoint !== 'object' ||
    checkpoint === null ||
    (checkpoint.version !== 1 && checkpoint.version !== 2) ||
    !Array.isArray(checkpoint.items) ||
    !Array.isArray(checkpoint.events)
  ) {
    return undefined;
  }
  const started = Array.isArray(checkpoint.started) ? checkpoint.started : [];
  const items = checkpoint.items;
  const startedItems =
    checkpoint.version === 2
      ? started.filter((index): index is number => Number.isSafeInteger(index))
      : items.flatMap((item, index) =>
          item.type === 'function_call' &&
          started.includes(item.call_id) &&
          !items.some((output) => output.type === 'function_call_output' && output.call_id === item.call_id)
            ? [index]
            : [],
        );
  return { ...(checkpoint as LegacyCheckpoint), version: 2, started: startedItems };
}

/**
 * The key a continued turn finds a held call's stored decision by: its item index, or, for an
 * approval recorded before approvals had one, its call id.
 */
export function resumeKey(approval: { callIndex?: number; callId: string }): string {
  return approval.callIndex === undefined ? `call:${approval.callId}` : `item:${approval.callIndex}`;
}
