import type { ApprovalRecord } from '@switchyard/control-plane';
import type { AgentUsage } from '@switchyard/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { DaemonTurnEvent } from './daemon-turn-types';
import type { TurnEntry } from './turn-entry';
import { compactEvents } from './turn-event-recording';

/** What the daemon stores with a turn whose call is held: enough for another process to continue it. */
export interface TurnCheckpoint {
  /** 2 since calls are named by their item index; 1 named them by call id. */
  version: 2;
  /** The transcript (`ToolCallRequest.transcript()`): its calls without an output are dispatched first. */
  items: ResponseInputItem[];
  /**
   * Calls of the last response the policy let run, by the index of their item in `items`: without
   * an output, they may have run. (Version 1 named them by call id.)
   */
  started: number[];
  /** The events so far (text deltas joined). */
  events: DaemonTurnEvent[];
  /** Model requests made so far. */
  iterations: number;
  /** Usage so far. */
  usage: AgentUsage;
  /** Milliseconds the turn ran (its time limit goes on from there). */
  activeMs: number;
  /** The turn's instructions, as sent. */
  instructions?: string;
  /** The request's `resumeContext`. */
  context?: Record<string, unknown>;
}

/** What a continued turn brings from its checkpoint. */
export interface ResumeState {
  /** The transcript the loop goes on from. */
  items: ResponseInputItem[];
  /** Decisions of the held calls, by `resumeKey`: each is acted on once, then deleted. */
  approvals: Map<string, ApprovalRecord>;
  /** Calls that were let run before and have no output, by item index: each is decided once, then deleted. */
  started: Set<number>;
  /** The instructions the loop goes on with. */
  instructions: string | undefined;
}

/** The checkpoint of a turn with a held call: what another process needs to continue it. */
export function checkpointOf(entry: TurnEntry): TurnCheckpoint {
  return {
    version: 2,
    items: entry.transcript?.() ?? [],
    started: [...entry.allowed],
    events: compactEvents(entry.events),
    iterations: entry.snapshot.iterations,
    usage: entry.snapshot.usage,
    activeMs: entry.deadline?.activeMs() ?? 0,
    ...(entry.instructions === undefined ? {} : { instructions: entry.instructions }),
    ...(entry.resumeContext === undefined ? {} : { context: entry.resumeContext }),
  };
}

/**
 * A stored checkpoint as this version reads it, or undefined when it is not one. A version 1
 * checkpoint (a process of an older worker held the call) named the calls let run by call id: each
 * is the unanswered call of the transcript with that id.
 */
export function readCheckpoint(value: unknown): TurnCheckpoint | undefined {
  const checkpoint = value as
    | (Omit<Partial<TurnCheckpoint>, 'version' | 'started'> & { version?: unknown; started?: unknown[] })
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
  return { ...(checkpoint as TurnCheckpoint), version: 2, started: startedItems };
}

/**
 * The key a continued turn finds a held call's stored decision by: its item index, or, for an
 * approval recorded before approvals had one, its call id.
 */
export function resumeKey(approval: { callIndex?: number; callId: string }): string {
  return approval.callIndex === undefined ? `call:${approval.callId}` : `item:${approval.callIndex}`;
}
