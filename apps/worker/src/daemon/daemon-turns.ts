import { randomUUID } from 'node:crypto';
import type { TurnRecord, TurnStore } from '@switchyard/control-plane';
import {
  type AgentEvent,
  type AgentRunStatus,
  type AgentUsage,
  type AnyWorkerAgentTool,
  type ResponsesModel,
  runAgentLoop,
} from '@switchyard/core';

/** Where a daemon turn came from. */
export type DaemonTurnSource = 'api' | 'schedule' | 'job' | 'task';

/**
 * A turn's state: `running`, then how the loop ended it; `interrupted` when the process running it
 * stopped without recording an end (read back from the turn records).
 */
export type DaemonTurnStatus = 'running' | AgentRunStatus | 'interrupted';

/** What the HTTP API reports about one turn (`GET /v1/turns/:id`). */
export interface DaemonTurnSnapshot {
  /** The turn id (`turn_<uuid>`). */
  id: string;
  /** The agent the turn ran for. */
  agent: string;
  /** Where the turn came from. */
  source: DaemonTurnSource;
  /** The source's own id: the schedule run id for `schedule`, absent for `api`. */
  sourceId?: string;
  /** `running`, or how the loop ended the turn. */
  status: DaemonTurnStatus;
  /** The last response's output text (empty while running). */
  output: string;
  /** Token usage so far (summed over the turn's model requests). */
  usage: AgentUsage;
  /** Model requests made so far. */
  iterations: number;
  /** When the turn started (ISO 8601). */
  createdAt: string;
  /** When the turn ended (ISO 8601), absent while running. */
  endedAt?: string;
  /** Why the turn failed or was aborted. */
  error?: string;
}

/** What one turn needs to run. */
export interface DaemonTurnRequest {
  /** The agent the turn runs for. */
  agentId: string;
  /** The user's message. */
  prompt: string;
  /** Where the turn came from. */
  source: DaemonTurnSource;
  /** The source's own id (a schedule run id, a job id, a task key). */
  sourceId?: string;
  /**
   * The attempt of the source's unit this turn runs (the queue's delivery count): recorded with the
   * turn, so that if this process dies the unit is handed back to its queue for the next attempt.
   */
  attempt?: number;
  /** The source's own cancellation (a cancelled workflow or job): aborts the turn too. */
  signal?: AbortSignal;
  /**
   * This turn's own tool array instead of the daemon's `tools` hook: task and job turns use their
   * fixed list (`createTaskTurnTools`), not the text-turn composition.
   */
  tools?: (
    context: DaemonTurnContext,
  ) => readonly AnyWorkerAgentTool[] | Promise<readonly AnyWorkerAgentTool[]>;
  /** This turn's own instructions instead of the daemon's `instructions` hook. */
  instructions?: string;
}

/** What the daemon's `tools` hook receives: builds the turn's tool array. */
export interface DaemonTurnContext extends Omit<DaemonTurnRequest, 'tools' | 'signal' | 'instructions'> {
  /** The daemon's turn id. */
  turnId: string;
  /** Aborts when the turn is cancelled (shutdown past the grace period). */
  signal: AbortSignal;
}

/** How the daemon builds and runs each turn. */
export interface DaemonTurnRunnerOptions {
  /** The model every turn talks to. */
  model: ResponsesModel;
  /** Builds the turn's tool array, explicitly, from its context. Default: no tools. */
  tools?: (
    context: DaemonTurnContext,
  ) => readonly AnyWorkerAgentTool[] | Promise<readonly AnyWorkerAgentTool[]>;
  /** Builds the turn's instructions. Default: none. */
  instructions?: (context: DaemonTurnContext) => string | undefined | Promise<string | undefined>;
  /**
   * Runs before every turn's tools are built, whatever its source (the daemon creates the agent's
   * home there). A rejection fails the turn, with its message as the turn's error.
   */
  beforeTurn?: (context: DaemonTurnContext) => void | Promise<void>;
  /** Most model requests per turn. */
  maxIterations?: number;
  /** Per tool call timeout in milliseconds. */
  toolTimeoutMs?: number;
  /** A turn is aborted after this many milliseconds. Default: no limit. */
  turnTimeoutMs?: number;
  /** How deferred tools are offered (default: the model's). */
  toolSearch?: 'native' | 'client';
  /** Finished turns kept in memory for the HTTP API (oldest dropped first). Default 1000. */
  maxRetainedTurns?: number;
  /**
   * Where every turn is recorded, durably, when it starts and when it ends (the control plane's
   * `turns`). Absent: turns live in memory only.
   */
  records?: DaemonTurnRecords;
  /** This process's id in the turn records (default: `PROCESS_WORKER_ID`, one per process). */
  workerId?: string;
  /** Receives one-line messages: each turn that did not finish, and recording problems. Default: none. */
  log?: (line: string) => void;
}

/** The part of the control plane's `TurnStore` the daemon's turns use. */
export type DaemonTurnRecords = Pick<TurnStore, 'recordStart' | 'recordEnd' | 'heartbeat' | 'get' | 'events'>;

type StreamedEventType = Exclude<AgentEvent['type'], 'turn-end'>;

/**
 * The last event of a turn's stream: core's `turn-end` with `error` as a message; its status is
 * `interrupted` only when read back from the records of a turn whose process died.
 */
export type DaemonTurnEndEvent = Omit<Extract<AgentEvent, { type: 'turn-end' }>, 'error' | 'status'> & {
  status: Exclude<DaemonTurnStatus, 'running'>;
  error?: string;
};

/** An event as the HTTP API sends it: the core event with `error` as a message. */
export type DaemonTurnEvent =
  | {
      [Type in StreamedEventType]: Omit<Extract<AgentEvent, { type: Type }>, 'error'> & { error?: string };
    }[StreamedEventType]
  | DaemonTurnEndEvent;

const ZERO_USAGE: AgentUsage = {
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
};

interface TurnEntry {
  snapshot: DaemonTurnSnapshot;
  events: DaemonTurnEvent[];
  listeners: Set<(event: DaemonTurnEvent) => void>;
  controller: AbortController;
  /** Set right after the entry is created: the turn's final snapshot. */
  done?: Promise<DaemonTurnSnapshot>;
}

function serialiseEvent(event: AgentEvent): DaemonTurnEvent {
  if ('error' in event && event.error instanceof Error) {
    return { ...event, error: event.error.message } as DaemonTurnEvent;
  }
  return event as DaemonTurnEvent;
}

/** Consecutive text deltas of one model request as one event: the stored log keeps the text, not its chunking. */
function compactEvents(events: readonly DaemonTurnEvent[]): DaemonTurnEvent[] {
  const compact: DaemonTurnEvent[] = [];
  for (const event of events) {
    const last = compact.at(-1);
    if (event.type === 'text-delta' && last?.type === 'text-delta' && last.iteration === event.iteration) {
      compact[compact.length - 1] = { ...last, delta: last.delta + event.delta };
    } else {
      compact.push(event);
    }
  }
  return compact;
}

function snapshotOf(record: TurnRecord): DaemonTurnSnapshot {
  return {
    id: record.id,
    agent: record.agentId,
    source: record.source,
    ...(record.sourceId === undefined ? {} : { sourceId: record.sourceId }),
    status: record.status,
    output: record.output,
    usage: record.usage,
    iterations: record.iterations,
    createdAt: record.createdAt,
    ...(record.endedAt === undefined ? {} : { endedAt: record.endedAt }),
    ...(record.error === undefined ? {} : { error: record.error }),
  };
}

/** This process's id in the turn records: every daemon in the process shares it. */
export const PROCESS_WORKER_ID = `worker_${randomUUID()}`;

const RECORD_END_RETRY_MS = [250, 1_000, 4_000];

function addUsage(total: AgentUsage, more: AgentUsage): AgentUsage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    cachedInputTokens: total.cachedInputTokens + more.cachedInputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    reasoningTokens: total.reasoningTokens + more.reasoningTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  };
}

/**
 * The daemon's turns: runs each one with core's loop, records it durably when it starts and ends
 * (with `records`), and keeps recent ones and their event logs in memory for the HTTP API (replay,
 * then live).
 *
 * Contract: `start` rejects only when the turn cannot be recorded (nothing runs then); a failing turn
 * does not reject: the model's or a tool's failure is the turn's status (`failed`), a cancellation
 * is `aborted`. A turn's `done` resolves once its end is recorded (retried, then logged).
 * `cancelAll` aborts every running turn, and each pending tool call still gets a "cancelled" output
 * from the loop.
 */
export class DaemonTurns {
  readonly #options: DaemonTurnRunnerOptions;
  readonly #turns = new Map<string, TurnEntry>();
  readonly #maxRetained: number;
  readonly #records: DaemonTurnRecords | undefined;
  /** Starts waiting for their record to be written. */
  readonly #starting = new Set<Promise<unknown>>();
  /** Set by `cancelAll`: a turn whose start was under way then is cancelled as it starts. */
  #cancelledWith: Error | undefined;
  /** This process's id in the turn records. */
  readonly workerId: string;

  constructor(options: DaemonTurnRunnerOptions) {
    this.#options = options;
    this.#maxRetained = options.maxRetainedTurns ?? 1000;
    this.#records = options.records;
    this.workerId = options.workerId ?? PROCESS_WORKER_ID;
  }

  /**
   * Records a turn as running, then starts it; resolves with its id and a promise of its final
   * snapshot (which never rejects).
   */
  async start(request: DaemonTurnRequest): Promise<{ id: string; done: Promise<DaemonTurnSnapshot> }> {
    const id = `turn_${randomUUID()}`;
    let createdAt = new Date().toISOString();
    if (this.#records !== undefined) {
      const recorded = this.#records.recordStart({
        id,
        agentId: request.agentId,
        source: request.source,
        ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
        ...(request.attempt === undefined ? {} : { attempt: request.attempt }),
        prompt: request.prompt,
        workerId: this.workerId,
      });
      this.#starting.add(recorded);
      try {
        // The record's clock, so the snapshot in memory and the record agree.
        createdAt = (await recorded).createdAt;
      } finally {
        this.#starting.delete(recorded);
      }
    }
    const controller = new AbortController();
    const signals = [controller.signal];
    if (this.#options.turnTimeoutMs !== undefined)
      signals.push(AbortSignal.timeout(this.#options.turnTimeoutMs));
    if (request.signal !== undefined) signals.push(request.signal);
    const signal = signals.length === 1 ? controller.signal : AbortSignal.any(signals);
    const entry: TurnEntry = {
      snapshot: {
        id,
        agent: request.agentId,
        source: request.source,
        ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
        status: 'running',
        output: '',
        usage: ZERO_USAGE,
        iterations: 0,
        createdAt,
      },
      events: [],
      listeners: new Set(),
      controller,
    };
    this.#turns.set(id, entry);
    if (this.#cancelledWith !== undefined) controller.abort(this.#cancelledWith);
    const { tools, instructions, signal: _sourceSignal, ...described } = request;
    const done = this.#run(entry, { ...described, turnId: id, signal }, tools, instructions);
    entry.done = done;
    this.#prune();
    return { id, done };
  }

  async #run(
    entry: TurnEntry,
    context: DaemonTurnContext,
    turnTools: DaemonTurnRequest['tools'],
    turnInstructions: string | undefined,
  ): Promise<DaemonTurnSnapshot> {
    const push = (event: DaemonTurnEvent) => {
      entry.events.push(event);
      for (const listener of entry.listeners) listener(event);
    };
    try {
      await this.#options.beforeTurn?.(context);
      const tools = (await (turnTools ?? this.#options.tools)?.(context)) ?? [];
      const instructions = turnInstructions ?? (await this.#options.instructions?.(context));
      const run = runAgentLoop({
        model: this.#options.model,
        tools,
        input: context.prompt,
        signal: context.signal,
        ...(instructions === undefined ? {} : { instructions }),
        ...(this.#options.maxIterations === undefined ? {} : { maxIterations: this.#options.maxIterations }),
        ...(this.#options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: this.#options.toolTimeoutMs }),
        ...(this.#options.toolSearch === undefined ? {} : { toolSearch: this.#options.toolSearch }),
      });
      for await (const event of run) {
        if (event.type === 'model-request-end') {
          entry.snapshot.usage = addUsage(entry.snapshot.usage, event.usage);
          entry.snapshot.iterations = event.iteration;
        }
        push(serialiseEvent(event));
      }
      const result = await run.result();
      entry.snapshot.status = result.status;
      entry.snapshot.output = result.output;
      entry.snapshot.usage = result.usage;
      entry.snapshot.iterations = result.iterations;
      if (result.error !== undefined) entry.snapshot.error = result.error.message;
    } catch (error) {
      // Building the tools or instructions failed: the turn fails, the daemon goes on.
      entry.snapshot.status = 'failed';
      entry.snapshot.error = error instanceof Error ? error.message : String(error);
      push({
        type: 'turn-end',
        status: 'failed',
        iterations: entry.snapshot.iterations,
        usage: entry.snapshot.usage,
        error: entry.snapshot.error,
      });
    }
    entry.snapshot.endedAt = new Date().toISOString();
    entry.listeners.clear();
    this.#logUnfinished(entry.snapshot);
    await this.#recordEnd(entry);
    return { ...entry.snapshot };
  }

  /** One line per turn that did not finish: the operator's log says which turn failed and why. */
  #logUnfinished(snapshot: DaemonTurnSnapshot): void {
    if (snapshot.status === 'completed' || snapshot.status === 'ended-by-tool') return;
    const source =
      snapshot.sourceId === undefined ? snapshot.source : `${snapshot.source} ${snapshot.sourceId}`;
    const reason = snapshot.error === undefined ? '' : `: ${snapshot.error.split('\n', 1)[0]}`;
    this.#options.log?.(
      `switchyard serve: turn ${snapshot.id} of agent ${snapshot.agent} (${source}) ${snapshot.status}${reason}`,
    );
  }

  async #recordEnd(entry: TurnEntry): Promise<void> {
    const records = this.#records;
    if (records === undefined) return;
    const { snapshot } = entry;
    const request = {
      id: snapshot.id,
      status: snapshot.status as Exclude<DaemonTurnStatus, 'running' | 'interrupted'>,
      output: snapshot.output,
      usage: snapshot.usage,
      iterations: snapshot.iterations,
      ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
      events: compactEvents(entry.events),
    };
    for (let attempt = 0; ; attempt += 1) {
      try {
        await records.recordEnd(request);
        return;
      } catch (error) {
        const delay = RECORD_END_RETRY_MS[attempt];
        if (delay === undefined) {
          // The row stays `running`; with no more heartbeats it is marked interrupted later.
          this.#options.log?.(
            `switchyard serve: could not record the end of ${snapshot.id} (${snapshot.status}): ${String(error)}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  #prune(): void {
    let finished = 0;
    for (const entry of this.#turns.values()) if (entry.snapshot.status !== 'running') finished += 1;
    for (const [id, entry] of this.#turns) {
      if (finished <= this.#maxRetained) break;
      if (entry.snapshot.status === 'running') continue;
      this.#turns.delete(id);
      finished -= 1;
    }
  }

  /** The turn's current snapshot from memory (this process's recent turns), or undefined. */
  get(id: string): DaemonTurnSnapshot | undefined {
    const entry = this.#turns.get(id);
    return entry === undefined ? undefined : { ...entry.snapshot };
  }

  /**
   * The turn's snapshot: from memory when this process ran it recently, else from the turn records
   * (turns of earlier runs and of other processes on the same database), else undefined.
   */
  async find(id: string): Promise<DaemonTurnSnapshot | undefined> {
    const local = this.get(id);
    if (local !== undefined || this.#records === undefined) return local;
    const record = await this.#records.get(id);
    return record === undefined ? undefined : snapshotOf(record);
  }

  /** Whether this process has the turn in memory (its events can be followed live). */
  has(id: string): boolean {
    return this.#turns.has(id);
  }

  /**
   * A turn's event log from the records (text deltas of one request joined), for a turn not in
   * memory; undefined when unknown or not recorded.
   */
  async recordedEvents(id: string): Promise<DaemonTurnEvent[] | undefined> {
    const log = await this.#records?.events(id);
    return log === undefined ? undefined : (log.events as DaemonTurnEvent[]);
  }

  /** Refreshes the heartbeat of this process's running turns in the records. */
  async heartbeat(): Promise<void> {
    const running: string[] = [];
    for (const [id, entry] of this.#turns) if (entry.snapshot.status === 'running') running.push(id);
    await this.#records?.heartbeat(running);
  }

  /**
   * Replays the turn's events so far to `listener`, then live ones until `turn-end`. Returns an
   * unsubscribe function, or undefined for an unknown id.
   */
  subscribe(id: string, listener: (event: DaemonTurnEvent) => void): (() => void) | undefined {
    const entry = this.#turns.get(id);
    if (entry === undefined) return undefined;
    for (const event of entry.events) listener(event);
    if (entry.snapshot.status !== 'running') return () => {};
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  /** Snapshots of every turn kept in memory, oldest first. */
  list(): DaemonTurnSnapshot[] {
    return [...this.#turns.values()].map((entry) => ({ ...entry.snapshot }));
  }

  /** Turns still running. */
  get running(): number {
    let count = 0;
    for (const entry of this.#turns.values()) if (entry.snapshot.status === 'running') count += 1;
    return count;
  }

  /** Aborts every running turn with `reason`, and every turn whose start is under way. */
  cancelAll(reason: Error): void {
    this.#cancelledWith = reason;
    for (const entry of this.#turns.values()) {
      if (entry.snapshot.status === 'running') entry.controller.abort(reason);
    }
  }

  /** Resolves when every turn started so far (its start under way included) has ended and is recorded. */
  async settled(): Promise<void> {
    while (this.#starting.size > 0 || this.running > 0) {
      await Promise.allSettled([...this.#starting, ...[...this.#turns.values()].map((entry) => entry.done)]);
    }
    await Promise.all([...this.#turns.values()].map((entry) => entry.done));
  }
}
