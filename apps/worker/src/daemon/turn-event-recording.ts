import type { AgentEvent } from '@switchyard/core';
import type {
  DaemonTurnEvent,
  DaemonTurnRecords,
  DaemonTurnSnapshot,
  DaemonTurnStatus,
} from './daemon-turn-types';

/** How long `recordTurnEnd` waits before each retry of a failed write, in ms: about 5 s in all. */
export const RECORD_END_RETRY_MS: readonly number[] = [250, 1_000, 4_000];

/**
 * A core event as the daemon's streams and records carry it: `error` as its message, and, for a turn
 * continued from another process's checkpoint, iterations counted from the turn's first request
 * (`iterationOffset` of them ran there).
 */
export function serialiseEvent(event: AgentEvent, iterationOffset: number): DaemonTurnEvent {
  let serialised: Record<string, unknown> = event as unknown as Record<string, unknown>;
  if ('error' in event && event.error instanceof Error)
    serialised = { ...serialised, error: event.error.message };
  if (iterationOffset > 0 && typeof serialised.iteration === 'number') {
    serialised = { ...serialised, iteration: serialised.iteration + iterationOffset };
  }
  if (iterationOffset > 0 && event.type === 'turn-end') {
    serialised = { ...serialised, iterations: event.iterations + iterationOffset };
  }
  return serialised as unknown as DaemonTurnEvent;
}

/**
 * Appends `event` to a log, joining a text delta to the one before it when both are of the same
 * model request: a log keeps the text, not its chunking (a 32 KB answer in small deltas is one
 * event, not thousands).
 */
export function appendEvent(log: DaemonTurnEvent[], event: DaemonTurnEvent): void {
  const last = log.at(-1);
  if (event.type === 'text-delta' && last?.type === 'text-delta' && last.iteration === event.iteration) {
    log[log.length - 1] = { ...last, delta: last.delta + event.delta };
  } else {
    log.push(event);
  }
}

/** Consecutive text deltas of one model request as one event: the stored log keeps the text, not its chunking. */
export function compactEvents(events: readonly DaemonTurnEvent[]): DaemonTurnEvent[] {
  const compact: DaemonTurnEvent[] = [];
  for (const event of events) appendEvent(compact, event);
  return compact;
}

/**
 * The operator's log line for a turn that did not finish (which turn, where it came from, how it
 * ended and the first line of why), or undefined for one that did (`completed`, `ended-by-tool`).
 */
export function describeUnfinishedTurn(snapshot: DaemonTurnSnapshot): string | undefined {
  if (snapshot.status === 'completed' || snapshot.status === 'ended-by-tool') return undefined;
  const source =
    snapshot.sourceId === undefined ? snapshot.source : `${snapshot.source} ${snapshot.sourceId}`;
  const reason = snapshot.error === undefined ? '' : `: ${snapshot.error.split('\n', 1)[0]}`;
  return `switchyard serve: turn ${snapshot.id} of agent ${snapshot.agent} (${source}) ${snapshot.status}${reason}`;
}

/** What `recordTurnEnd` takes besides the records and the turn. */
export interface RecordTurnEndOptions {
  /** Receives the line saying the end could not be recorded. Default: none. */
  log?: (line: string) => void;
  /** The waits before each retry, in ms. Default `RECORD_END_RETRY_MS`. */
  retryDelaysMs?: readonly number[];
}

/**
 * Records how a turn ended (its snapshot's status, output, usage, iterations, error) with its event
 * log compacted, retrying a failed write after each of `retryDelaysMs`.
 *
 * Contract: never rejects. When every attempt failed it logs one line naming the turn and its status,
 * and the record stays `running`: with no more heartbeats it is marked `interrupted` later, which
 * hands its unit back to its queue.
 */
export async function recordTurnEnd(
  records: Pick<DaemonTurnRecords, 'recordEnd'>,
  turn: { snapshot: DaemonTurnSnapshot; events: readonly DaemonTurnEvent[] },
  options: RecordTurnEndOptions = {},
): Promise<void> {
  const { snapshot } = turn;
  const request = {
    id: snapshot.id,
    status: snapshot.status as Exclude<DaemonTurnStatus, 'running' | 'waiting-approval' | 'interrupted'>,
    output: snapshot.output,
    usage: snapshot.usage,
    iterations: snapshot.iterations,
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    events: compactEvents(turn.events),
    // The limit that ended it: the last one noted (an earlier one only delayed it).
    ...(snapshot.status === 'budget-exceeded' && snapshot.limitedBy !== undefined
      ? { limitedBy: snapshot.limitedBy.at(-1) }
      : {}),
  };
  const delays = options.retryDelaysMs ?? RECORD_END_RETRY_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await records.recordEnd(request);
      return;
    } catch (error) {
      const delay = delays[attempt];
      if (delay === undefined) {
        options.log?.(
          `switchyard serve: could not record the end of ${snapshot.id} (${snapshot.status}): ${String(error)}`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
