import type { TurnRecord } from '@switchyard/control-plane';
import type { DaemonTurnEvent, DaemonTurnRecords, DaemonTurnSnapshot } from './daemon-turn-types';
import { definedFields } from './defined-fields';
import type { HeldTurnView } from './held-turn-view';
import { DEFAULT_MAX_RETAINED_TURN_BYTES } from './memory-limits';
import { upgradeRecordedEvents } from './recorded-events';
import { isLegacyCheckpoint, readCheckpoint } from './turn-checkpoint';
import { isOpenTurn, type TurnEntry } from './turn-entry';
import { appendEvent } from './turn-event-recording';

/** Follows every turn of a process: `event` is undefined when the turn started, was continued or ended. */
export type TurnObserver = (turn: DaemonTurnSnapshot, event: DaemonTurnEvent | undefined) => void;

/** What a `TurnRegistry` keeps. */
export interface TurnRegistryOptions {
  /** Finished turns kept in memory (oldest dropped first). Default 1000. */
  maxRetainedTurns?: number;
  /** The most bytes of finished turns kept in memory (`retainedSizeOf`). Default 32 MiB. */
  maxRetainedTurnBytes?: number;
  /** The turn records: turns not in memory are read from them. Absent: memory only. */
  records?: Pick<DaemonTurnRecords, 'get' | 'events'> & Partial<Pick<DaemonTurnRecords, 'checkpoint'>>;
  /**
   * What a turn held elsewhere has done so far, from its journal (`heldTurnView`; its events only
   * when `events`). Absent: a held turn shows its record (and an older worker's transcript
   * checkpoint) only.
   */
  heldView?: (turnId: string, events: boolean) => Promise<HeldTurnView>;
}

/** The API's snapshot of a recorded turn. */
export function snapshotOf(record: TurnRecord): DaemonTurnSnapshot {
  return {
    id: record.id,
    agent: record.agentId,
    source: record.source,
    ...definedFields(record, ['sourceId']),
    title: record.title,
    status: record.status,
    output: record.output,
    usage: record.usage,
    iterations: record.iterations,
    createdAt: record.createdAt,
    ...definedFields(record, ['endedAt', 'error']),
    ...(record.limitedBy.length === 0 ? {} : { limitedBy: record.limitedBy }),
  };
}

/**
 * What an ended turn costs the memory budget: the JSON size of its (joined) event log, its output and
 * error, measured once when it ends.
 */
export function retainedSizeOf(entry: Pick<TurnEntry, 'snapshot' | 'events'>): number {
  const text = entry.snapshot.output.length + (entry.snapshot.error?.length ?? 0);
  try {
    return JSON.stringify(entry.events).length + text;
  } catch {
    // A log JSON cannot hold (the records refuse it too): a kilobyte an event, so it still counts.
    return entry.events.length * 1024 + text;
  }
}

/**
 * The turns of one process in memory: the open ones (running or waiting for approval) and the most
 * recent finished ones, under a count and a byte budget; their event logs, replayed to a follower
 * and then streamed live; and everyone observing every turn (the HTTP API's `/v1/events`).
 *
 * Contract: an open turn is never dropped, whatever the budget; the others (finished or let go) are
 * dropped in the order they closed, the newest too when it alone is over the byte budget. A turn let
 * go (`letGo`) takes no more events, and is no longer open. An observer that throws is ignored.
 * `running` and `retained` are counts kept as turns start, end, are let go and are dropped, not
 * walks of every turn: with thousands in flight, each `POST` and each `/healthz` reads `running`,
 * and each end `retained`.
 */
export class TurnRegistry {
  readonly #turns = new Map<string, TurnEntry>();
  /** The kept turns that are open: from `add` until they end (`ended`) or are let go (`letGo`). */
  readonly #open = new Set<TurnEntry>();
  /** The kept turns that are not open, in the order they closed, and the sum of their `retainedBytes`. */
  readonly #closed = new Set<TurnEntry>();
  #closedBytes = 0;
  readonly #observers = new Set<TurnObserver>();
  readonly #maxRetained: number;
  readonly #maxRetainedBytes: number;
  readonly #records: TurnRegistryOptions['records'];
  readonly #heldView: TurnRegistryOptions['heldView'];

  constructor(options: TurnRegistryOptions = {}) {
    this.#maxRetained = options.maxRetainedTurns ?? 1000;
    this.#maxRetainedBytes = options.maxRetainedTurnBytes ?? DEFAULT_MAX_RETAINED_TURN_BYTES;
    this.#records = options.records;
    this.#heldView = options.heldView;
  }

  /**
   * Keeps a new (or continued) turn under its id, in place of any kept before: observers hear of it
   * at `changed`. An open turn counts as open until it ends (`ended`) or is let go (`letGo`).
   */
  add(entry: TurnEntry): void {
    const id = entry.snapshot.id;
    const replaced = this.#turns.get(id);
    if (replaced !== undefined) this.#forget(replaced);
    this.#turns.set(id, entry);
    if (isOpenTurn(entry)) this.#open.add(entry);
    else this.#close(entry);
  }

  /**
   * Lets a turn go (another worker's now: it takes no more events, and its end is not recorded
   * here) and aborts its loop with `reason`.
   */
  letGo(entry: TurnEntry, letGo: 'released' | 'taken-over', reason: Error): void {
    entry.letGo = letGo;
    if (this.#open.has(entry)) this.#close(entry);
    entry.controller.abort(reason);
  }

  /** A kept turn is open no more: it counts among the closed ones, with its size so far. */
  #close(entry: TurnEntry): void {
    this.#open.delete(entry);
    this.#closed.add(entry);
    this.#closedBytes += entry.retainedBytes;
  }

  /** A kept turn is dropped from the counts. */
  #forget(entry: TurnEntry): void {
    this.#open.delete(entry);
    if (this.#closed.delete(entry)) this.#closedBytes -= entry.retainedBytes;
  }

  /** The turn's entry, or undefined when it is not (or no longer) kept. */
  entry(id: string): TurnEntry | undefined {
    return this.#turns.get(id);
  }

  /** Every turn kept, oldest first (live: a turn kept while this is iterated is visited too). */
  entries(): IterableIterator<TurnEntry> {
    return this.#turns.values();
  }

  /** The open turns (running or waiting in this process, not let go), oldest first. */
  open(): TurnEntry[] {
    return [...this.#open];
  }

  /** Adds an event to a turn's log and hands it to its followers and to every observer. */
  push(entry: TurnEntry, event: DaemonTurnEvent): void {
    // A turn let go is another process's now: what its aborted loop does here is not its story.
    if (entry.letGo !== undefined) return;
    // Stamped here, the one place every event passes, so a timeline has one clock (this process's).
    const timed = event.at === undefined ? { ...event, at: new Date().toISOString() } : event;
    appendEvent(entry.events, timed);
    for (const listener of entry.listeners) listener(timed);
    this.#notify(entry, timed);
  }

  /**
   * A turn started, was continued or ended: observers hear of it (with no event), and once it has
   * finished, finished turns past the budgets are dropped. Only a turn's end can take the finished
   * ones past a budget, so a start does not walk every kept turn (with thousands in flight, that
   * walk on every start grew with the turns in flight).
   */
  changed(entry: TurnEntry): void {
    this.#notify(entry, undefined);
    if (!isOpenTurn(entry)) this.#prune();
  }

  /**
   * A turn's loop ended (its final status set, or let go): its followers are let go, its size in the
   * memory budget is measured, and it is open no more.
   */
  ended(entry: TurnEntry): void {
    entry.listeners.clear();
    const bytes = retainedSizeOf(entry);
    // A turn let go was counted closed when it was, with no size yet.
    if (this.#closed.has(entry)) this.#closedBytes += bytes - entry.retainedBytes;
    entry.retainedBytes = bytes;
    if (this.#open.has(entry)) this.#close(entry);
  }

  #notify(entry: TurnEntry, event: DaemonTurnEvent | undefined): void {
    if (this.#observers.size === 0) return;
    const snapshot = { ...entry.snapshot };
    for (const observer of this.#observers) {
      try {
        observer(snapshot, event);
      } catch {
        // An observer's trouble is its own.
      }
    }
  }

  /**
   * Follows every turn: `observer(snapshot, event)` for each event, and `observer(snapshot, undefined)`
   * when a turn starts or is continued here and when its end is recorded. Returns an unsubscribe function.
   */
  observe(observer: TurnObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /**
   * Drops the turns that closed first while more than `maxRetainedTurns` or `maxRetainedTurnBytes`
   * of them are kept.
   */
  #prune(): void {
    for (const entry of this.#closed) {
      if (this.#closed.size <= this.#maxRetained && this.#closedBytes <= this.#maxRetainedBytes) break;
      this.#turns.delete(entry.snapshot.id);
      this.#forget(entry);
    }
  }

  /**
   * The turns kept in memory that are not open (finished, or let go): how many, and their size as
   * `maxRetainedTurnBytes` counts it.
   */
  retained(): { turns: number; bytes: number } {
    return { turns: this.#closed.size, bytes: this.#closedBytes };
  }

  /** The turn's current snapshot from memory, or undefined. */
  get(id: string): DaemonTurnSnapshot | undefined {
    const entry = this.#turns.get(id);
    return entry === undefined ? undefined : { ...entry.snapshot };
  }

  /**
   * The turn's snapshot: from memory when this process runs it or ran it recently, else from the
   * turn records (turns of earlier runs and of other processes on the same database; a turn waiting
   * for approval with the usage and iterations its journal records), else undefined.
   */
  async find(id: string): Promise<DaemonTurnSnapshot | undefined> {
    const entry = this.#turns.get(id);
    if ((entry !== undefined && entry.letGo === undefined) || this.#records === undefined) {
      return entry === undefined ? undefined : { ...entry.snapshot };
    }
    const record = await this.#records.get(id);
    if (record === undefined) return undefined;
    const snapshot = snapshotOf(record);
    if (record.status !== 'waiting-approval') return snapshot;
    // Its usage is recorded at its end: until then, its journal says how far it got (the upgrade
    // path: the transcript checkpoint an older worker stored).
    const checkpoint = readCheckpoint(await this.#records.checkpoint?.(id));
    if (isLegacyCheckpoint(checkpoint)) {
      return { ...snapshot, usage: checkpoint.usage, iterations: checkpoint.iterations };
    }
    const held = await this.#heldView?.(id, false);
    return held === undefined ? snapshot : { ...snapshot, usage: held.usage, iterations: held.iterations };
  }

  /** Whether the turn is in memory and this process's own (its events can be followed live). */
  has(id: string): boolean {
    const entry = this.#turns.get(id);
    return entry !== undefined && entry.letGo === undefined;
  }

  /**
   * A turn's event log from the records, with the outcomes of calls recorded by an older worker read
   * as today's (`upgradeRecordedEvents`); for a turn not ended, its events rebuilt from its journal
   * and pending approvals (`heldTurnView`; the upgrade path: those of an older worker's transcript
   * checkpoint); undefined when unknown or not recorded.
   */
  async recordedEvents(id: string): Promise<DaemonTurnEvent[] | undefined> {
    const log = await this.#records?.events(id);
    if (log === undefined) return undefined;
    if (log.events.length > 0) return upgradeRecordedEvents(log.events);
    // A log is written at the turn's end: until then, what its journal and approvals say.
    const checkpoint = readCheckpoint(await this.#records?.checkpoint?.(id));
    if (isLegacyCheckpoint(checkpoint)) return upgradeRecordedEvents(checkpoint.events);
    if (checkpoint === undefined || this.#heldView === undefined) return [];
    return (await this.#heldView(id, true)).events;
  }

  /**
   * Follows a turn kept in memory: `past` is its events so far (text deltas of one request joined),
   * and while it is open (`live`) `listener` gets each later event as it happens, up to `turn-end`.
   * Nothing is called back before this returns, so nothing falls between `past` and the first live
   * event. Undefined for an unknown id.
   */
  follow(
    id: string,
    listener: (event: DaemonTurnEvent) => void,
  ): { past: readonly DaemonTurnEvent[]; live: boolean; stop(): void } | undefined {
    const entry = this.#turns.get(id);
    if (entry === undefined) return undefined;
    // A copy of the references: the log's last text delta is replaced as more text is joined to it.
    const past = entry.events.slice();
    if (!isOpenTurn(entry)) return { past, live: false, stop: () => {} };
    entry.listeners.add(listener);
    return { past, live: true, stop: () => entry.listeners.delete(listener) };
  }

  /** Snapshots of every turn kept in memory, oldest first. */
  list(): DaemonTurnSnapshot[] {
    return [...this.#turns.values()].map((entry) => ({ ...entry.snapshot }));
  }

  /** How many turns are open (running or waiting for approval in this process). */
  get running(): number {
    return this.#open.size;
  }
}
