import { randomUUID } from 'node:crypto';
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

/** A turn's state: `running`, then how the loop ended it. */
export type DaemonTurnStatus = 'running' | AgentRunStatus;

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
}

/** An event as the HTTP API sends it: the core event with `error` as a message. */
export type DaemonTurnEvent = {
  [Type in AgentEvent['type']]: Omit<Extract<AgentEvent, { type: Type }>, 'error'> & { error?: string };
}[AgentEvent['type']];

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
 * The daemon's turns: runs each one with core's loop and keeps its record and event log in memory
 * for the HTTP API (replay, then live).
 *
 * Contract: `start` never throws for a failing turn: the model's or a tool's failure is the turn's
 * status (`failed`), a cancellation is `aborted`; `cancelAll` aborts every running turn, and each
 * pending tool call still gets a "cancelled" output from the loop.
 */
export class DaemonTurns {
  readonly #options: DaemonTurnRunnerOptions;
  readonly #turns = new Map<string, TurnEntry>();
  readonly #maxRetained: number;

  constructor(options: DaemonTurnRunnerOptions) {
    this.#options = options;
    this.#maxRetained = options.maxRetainedTurns ?? 1000;
  }

  /** Starts a turn; returns its id and a promise of its final snapshot (never rejects). */
  start(request: DaemonTurnRequest): { id: string; done: Promise<DaemonTurnSnapshot> } {
    const id = `turn_${randomUUID()}`;
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
        createdAt: new Date().toISOString(),
      },
      events: [],
      listeners: new Set(),
      controller,
    };
    this.#turns.set(id, entry);
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
    return { ...entry.snapshot };
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

  /** The turn's current snapshot, or undefined for an unknown id. */
  get(id: string): DaemonTurnSnapshot | undefined {
    const entry = this.#turns.get(id);
    return entry === undefined ? undefined : { ...entry.snapshot };
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

  /** Aborts every running turn with `reason`. */
  cancelAll(reason: Error): void {
    for (const entry of this.#turns.values()) {
      if (entry.snapshot.status === 'running') entry.controller.abort(reason);
    }
  }

  /** Resolves when every turn started so far has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.#turns.values()].map((entry) => entry.done));
  }
}
