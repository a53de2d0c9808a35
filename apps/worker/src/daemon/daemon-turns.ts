import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type Context as OtelContext, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { ApprovalRecord, ResumableTurn, TurnRecord, TurnStore } from '@switchyard/control-plane';
import {
  type AgentEvent,
  type AgentRunStatus,
  type AgentUsage,
  type AnyWorkerAgentTool,
  type ResponsesModel,
  runAgentLoop,
  type ToolCallDecision,
  type ToolCallRequest,
  type ToolSearchMode,
} from '@switchyard/core';
import { addUsage, toolKey, ZERO_USAGE } from '@switchyard/core/internal';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { ApprovalPolicy } from '../config/worker-config';
import {
  approvalView,
  type DaemonApproval,
  type DaemonApprovalStore,
  decideByPolicy,
  denialReason,
} from './daemon-approvals';
import { definedFields } from './defined-fields';
import { DEFAULT_MAX_RETAINED_TURN_BYTES } from './memory-limits';
import { upgradeRecordedEvents } from './recorded-events';
import { TurnDeadline } from './turn-deadline';

/** Where a daemon turn came from. */
export type DaemonTurnSource = 'api' | 'schedule' | 'job' | 'task';

/**
 * A turn's state: `running`; `waiting-approval` while a call of it is held for an operator's
 * answer; then how the loop ended it; `interrupted` when the process running it stopped without
 * recording an end (read back from the turn records).
 */
export type DaemonTurnStatus = 'running' | 'waiting-approval' | AgentRunStatus | 'interrupted';

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
  /** `running`, `waiting-approval`, or how the loop ended the turn. */
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
  /** Why the turn failed or was aborted, or (status `incomplete`) why its final response was cut off. */
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
  /**
   * JSON stored with the turn when a call of it is held: what `resumeRequest` needs to rebuild this
   * turn's own `tools` in another process (a task turn's unit).
   */
  resumeContext?: Record<string, unknown>;
  /**
   * The W3C `traceparent` of the tool call that started this work (stored with a workflow task or a
   * background job): the turn's span becomes its child, so work started elsewhere joins that trace.
   */
  traceParent?: string;
}

/** What the daemon's `tools` hook receives: builds the turn's tool array. */
export interface DaemonTurnContext
  extends Omit<DaemonTurnRequest, 'tools' | 'signal' | 'instructions' | 'resumeContext'> {
  /** The daemon's turn id. */
  turnId: string;
  /** Aborts when the turn is cancelled (shutdown past the grace period). */
  signal: AbortSignal;
}

/** How the turns `serve` runs unattended treat calls their agent's policy asks about. */
export interface DaemonApprovalOptions {
  /** Where approvals are recorded and answered (`controlPlane.approvals`). */
  store: DaemonApprovalStore;
  /** The approval policy of an agent. */
  policy(agentId: string): ApprovalPolicy;
  /** How often a held call checks whether it was answered, in ms. Default 1000. */
  pollMs?: number;
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
  /** Most calls of one response running at once (default: core's). */
  maxParallelCalls?: number;
  /**
   * A turn is aborted after this many milliseconds of running (time waiting for an approval does
   * not count). Default: no limit.
   */
  turnTimeoutMs?: number;
  /** How deferred tools are offered (default: the model's). */
  toolSearch?: ToolSearchMode;
  /** Finished turns kept in memory for the HTTP API (oldest dropped first). Default 1000. */
  maxRetainedTurns?: number;
  /**
   * The most bytes of finished turns kept in memory (`serve.maxRetainedTurnBytes`), measured when
   * each ends as the JSON size of its event log (text deltas joined, as the records store it) plus
   * its output; the oldest are dropped first, the newest too when it alone is larger. Turns dropped
   * are read from the records. Default 32 MiB (`DEFAULT_MAX_RETAINED_TURN_BYTES`).
   */
  maxRetainedTurnBytes?: number;
  /**
   * Where every turn is recorded, durably, when it starts and when it ends (the control plane's
   * `turns`). Absent: turns live in memory only.
   */
  records?: DaemonTurnRecords;
  /** This process's id in the turn records (default: `PROCESS_WORKER_ID`, one per process). */
  workerId?: string;
  /** Receives one-line messages: each turn that did not finish, and recording problems. Default: none. */
  log?: (line: string) => void;
  /** Approval policies of held calls. Absent: every validated call runs. */
  approvals?: DaemonApprovalOptions;
  /**
   * Rebuilds the own `tools` and `instructions` of a turn continued from its checkpoint (another
   * process held its call), from the turn's record and the `resumeContext` it was started with.
   * Undefined: the daemon's hooks build it, as an ordinary text turn.
   */
  resumeRequest?: (
    turn: TurnRecord,
    context: Record<string, unknown> | undefined,
  ) => Pick<DaemonTurnRequest, 'tools' | 'instructions'> | undefined;
}

/** The part of the control plane's `TurnStore` the daemon's turns use. */
export type DaemonTurnRecords = Pick<TurnStore, 'recordStart' | 'recordEnd' | 'heartbeat' | 'get' | 'events'>;

type StreamedEventType = Exclude<AgentEvent['type'], 'turn-end'>;

/**
 * The last event of a turn's stream: core's `turn-end` with `error` as a message; its status is
 * `interrupted` only when read back from the records of a turn whose process died.
 */
export type DaemonTurnEndEvent = Omit<Extract<AgentEvent, { type: 'turn-end' }>, 'error' | 'status'> & {
  status: Exclude<DaemonTurnStatus, 'running' | 'waiting-approval'>;
  error?: string;
};

/** A call of the turn is held for an operator's answer (`approval-requested`). */
export interface ApprovalRequestedEvent {
  /** Discriminator. */
  type: 'approval-requested';
  /** The approval, `pending`. */
  approval: DaemonApproval;
}

/** A held call's approval was decided and the turn acts on it (`approval-resolved`). */
export interface ApprovalResolvedEvent {
  /** Discriminator. */
  type: 'approval-resolved';
  /** The approval: `allowed`, `denied`, `expired` or `cancelled`. */
  approval: DaemonApproval;
}

/** An event as the HTTP API sends it: the core event with `error` as a message, or an approval event. */
export type DaemonTurnEvent =
  | {
      [Type in StreamedEventType]: Omit<Extract<AgentEvent, { type: Type }>, 'error'> & { error?: string };
    }[StreamedEventType]
  | DaemonTurnEndEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent;

/** What the daemon stores with a turn whose call is held: enough for another process to continue it. */
interface TurnCheckpoint {
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
interface ResumeState {
  items: ResponseInputItem[];
  /** Decisions of the held calls, by `resumeKey`. */
  approvals: Map<string, ApprovalRecord>;
  /** Calls that were let run before and have no output, by item index. */
  started: Set<number>;
  instructions: string | undefined;
}

interface TurnEntry {
  snapshot: DaemonTurnSnapshot;
  /** The events so far, text deltas of one request joined (`appendEvent`). */
  events: DaemonTurnEvent[];
  /** Its size in memory's budget once it ended (`retainedSizeOf`); 0 while open. */
  retainedBytes: number;
  listeners: Set<(event: DaemonTurnEvent) => void>;
  controller: AbortController;
  /** Set right after the entry is created: the turn's final snapshot. */
  done?: Promise<DaemonTurnSnapshot>;
  /** The turn's time limit, paused while it waits for an approval. */
  deadline: TurnDeadline | undefined;
  /** Its calls held in this process, by item index. */
  held: Map<number, ApprovalRecord>;
  /** Calls of the current response the policy let run, by item index. */
  allowed: Set<number>;
  /** Calls running now, by item index. */
  inFlight: Set<number>;
  /** The turn's signal (the loop's). */
  signal: AbortSignal;
  /** The latest `transcript()` of a held call (it reads the loop's live state). */
  transcript?: () => ResponseInputItem[];
  /** Iterations and usage of the part of the turn another process ran (a continued turn). */
  offset: { iterations: number; usage: AgentUsage };
  instructions: string | undefined;
  resumeContext: Record<string, unknown> | undefined;
  /** Resolves when the turn's unit was detached from its queue (its first held call). */
  detached: Promise<void>;
  markDetached(): void;
  /** Let go at shutdown while it waited, or taken over by another worker: its end is not recorded here. */
  letGo: 'released' | 'taken-over' | undefined;
  /** Checkpoint writes, one after another. */
  checkpointWrites: Promise<void>;
}

function serialiseEvent(event: AgentEvent, iterationOffset: number): DaemonTurnEvent {
  let serialised: Record<string, unknown> = event as unknown as Record<string, unknown>;
  if ('error' in event && event.error instanceof Error)
    serialised = { ...serialised, error: event.error.message };
  if (iterationOffset > 0 && typeof serialised.iteration === 'number') {
    serialised = { ...serialised, iteration: serialised.iteration + iterationOffset };
  }
  if (iterationOffset > 0 && event.type === 'turn-end') {
    serialised = { ...serialised, iterations: event.iterations + iterationOffset };
  }
  return serialised as DaemonTurnEvent;
}

/** A context whose span is the remote one a stored `traceparent` names (the SDK's propagator reads it). */
function parentFromTraceParent(traceParent: string): OtelContext {
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
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
 * What an ended turn costs the memory budget: the JSON size of its (joined) event log, its output and
 * error, measured once when it ends.
 */
function retainedSizeOf(entry: TurnEntry): number {
  const text = entry.snapshot.output.length + (entry.snapshot.error?.length ?? 0);
  try {
    return JSON.stringify(entry.events).length + text;
  } catch {
    // A log JSON cannot hold (the records refuse it too): a kilobyte an event, so it still counts.
    return entry.events.length * 1024 + text;
  }
}

/** The API's snapshot of a recorded turn. */
export function snapshotOf(record: TurnRecord): DaemonTurnSnapshot {
  return {
    id: record.id,
    agent: record.agentId,
    source: record.source,
    ...definedFields(record, ['sourceId']),
    status: record.status,
    output: record.output,
    usage: record.usage,
    iterations: record.iterations,
    createdAt: record.createdAt,
    ...definedFields(record, ['endedAt', 'error']),
  };
}

/** This process's id in the turn records: every daemon in the process shares it. */
export const PROCESS_WORKER_ID = `worker_${randomUUID()}`;

const RECORD_END_RETRY_MS = [250, 1_000, 4_000];

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function activityOf(tool: AnyWorkerAgentTool, params: unknown): string {
  try {
    const label = tool.describeActivity(params as never);
    return typeof label === 'string' && label !== '' ? label : tool.name;
  } catch {
    return tool.name;
  }
}

/**
 * A stored checkpoint as this version reads it, or undefined when it is not one. A version 1
 * checkpoint (a process of an older worker held the call) named the calls let run by call id: each
 * is the unanswered call of the transcript with that id.
 */
function readCheckpoint(value: unknown): TurnCheckpoint | undefined {
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
function resumeKey(approval: { callIndex?: number; callId: string }): string {
  return approval.callIndex === undefined ? `call:${approval.callId}` : `item:${approval.callIndex}`;
}

/** Arguments as stored (a JSON round trip: `undefined` fields dropped), compared key order aside. */
function sameArguments(stored: unknown, params: unknown): boolean {
  return isDeepStrictEqual(stored, JSON.parse(JSON.stringify(params ?? null)));
}

/**
 * The daemon's turns: runs each one with core's loop, records it durably when it starts and ends
 * (with `records`), and keeps recent ones and their event logs in memory for the HTTP API (replay,
 * then live). With `approvals`, each call goes through its agent's policy: a held call waits for an
 * answer from any process on the database, and a turn whose process stopped meanwhile is continued
 * by another (`resume`).
 *
 * Contract: `start` rejects only when the turn cannot be recorded (nothing runs then); a failing turn
 * does not reject: the model's or a tool's failure is the turn's status (`failed`), a cancellation
 * is `aborted`. A turn's `done` resolves once its end is recorded (retried, then logged).
 * `cancelAll` aborts every running turn, and each pending tool call still gets a "cancelled" output
 * from the loop. A held call runs at most once, in whichever process acts on its allowed decision.
 */
export class DaemonTurns {
  readonly #options: DaemonTurnRunnerOptions;
  readonly #turns = new Map<string, TurnEntry>();
  readonly #maxRetained: number;
  readonly #maxRetainedBytes: number;
  readonly #records: DaemonTurnRecords | undefined;
  /** Starts waiting for their record to be written. */
  readonly #starting = new Set<Promise<unknown>>();
  /** Set by `cancelAll`: a turn whose start was under way then is cancelled as it starts. */
  #cancelledWith: Error | undefined;
  /** Held calls of this process waiting for a decision, by approval id. */
  readonly #waiters = new Map<string, { expiresAt: number; resolve(record: ApprovalRecord): void }>();
  #pollTimer: NodeJS.Timeout | undefined;
  #polling = false;
  /** Everyone following every turn of this process (the HTTP API's `/v1/events`). */
  readonly #observers = new Set<(turn: DaemonTurnSnapshot, event: DaemonTurnEvent | undefined) => void>();
  /** This process's id in the turn records. */
  readonly workerId: string;

  constructor(options: DaemonTurnRunnerOptions) {
    this.#options = options;
    this.#maxRetained = options.maxRetainedTurns ?? 1000;
    this.#maxRetainedBytes = options.maxRetainedTurnBytes ?? DEFAULT_MAX_RETAINED_TURN_BYTES;
    this.#records = options.records;
    this.workerId = options.workerId ?? PROCESS_WORKER_ID;
  }

  #newEntry(snapshot: DaemonTurnSnapshot): TurnEntry {
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
      deadline:
        this.#options.turnTimeoutMs === undefined ? undefined : new TurnDeadline(this.#options.turnTimeoutMs),
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
      checkpointWrites: Promise.resolve(),
    };
  }

  #signalOf(entry: TurnEntry, source: AbortSignal | undefined): AbortSignal {
    const signals = [entry.controller.signal];
    if (entry.deadline !== undefined) signals.push(entry.deadline.signal);
    if (source !== undefined) signals.push(source);
    return signals.length === 1 ? entry.controller.signal : AbortSignal.any(signals);
  }

  /**
   * Records a turn as running, then starts it; resolves with its id, a promise of its final
   * snapshot (which never rejects), and one that resolves if a call of it is held while its unit is
   * detached from its queue (the turn's end settles the unit then, not the queue's consumer).
   * `options.id` is the id to record it under (an API start with an `Idempotency-Key` chose it when
   * it claimed the key); an id already recorded is refused by the records (`ControlPlaneInputError`
   * on `id`) and nothing runs.
   */
  async start(
    request: DaemonTurnRequest,
    options: { id?: string } = {},
  ): Promise<{ id: string; done: Promise<DaemonTurnSnapshot>; detached: Promise<void> }> {
    const id = options.id ?? `turn_${randomUUID()}`;
    let createdAt = new Date().toISOString();
    if (this.#records !== undefined) {
      const recorded = this.#records.recordStart({
        id,
        agentId: request.agentId,
        source: request.source,
        ...definedFields(request, ['sourceId', 'attempt']),
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
    const entry = this.#newEntry({
      id,
      agent: request.agentId,
      source: request.source,
      ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
      status: 'running',
      output: '',
      usage: ZERO_USAGE,
      iterations: 0,
      createdAt,
    });
    entry.resumeContext = request.resumeContext;
    const signal = this.#signalOf(entry, request.signal);
    entry.signal = signal;
    this.#turns.set(id, entry);
    if (this.#cancelledWith !== undefined) entry.controller.abort(this.#cancelledWith);
    const { tools, instructions, signal: _sourceSignal, resumeContext: _context, ...described } = request;
    const done = this.#run(entry, { ...described, turnId: id, signal }, tools, instructions, undefined);
    entry.done = done;
    this.#notify(entry, undefined);
    this.#prune();
    return { id, done, detached: entry.detached };
  }

  /**
   * Continues a turn another process left waiting for approval (its process stopped, or let it go
   * at shutdown), claimed by this one (`approvals.claimResumable`): from its checkpoint's transcript,
   * its held calls decided by their approvals (each acted on once), its events so far kept. A turn
   * whose cancellation was asked for is ended `aborted` without a model request.
   *
   * Contract: resolves with the turn's id and a promise of its final snapshot (never rejects); a turn
   * whose checkpoint cannot be read is recorded `failed`, saying so.
   */
  async resume(claimed: ResumableTurn): Promise<{ id: string; done: Promise<DaemonTurnSnapshot> }> {
    const record = claimed.turn;
    const checkpoint = readCheckpoint(claimed.checkpoint);
    const entry = this.#newEntry({
      ...snapshotOf(record),
      status: 'running',
      usage: checkpoint?.usage ?? record.usage,
      iterations: checkpoint?.iterations ?? record.iterations,
    });
    entry.events = checkpoint === undefined ? [] : upgradeRecordedEvents(checkpoint.events);
    entry.offset = { iterations: checkpoint?.iterations ?? 0, usage: checkpoint?.usage ?? ZERO_USAGE };
    entry.resumeContext = checkpoint?.context;
    if (checkpoint !== undefined && entry.deadline !== undefined) entry.deadline.spend(checkpoint.activeMs);
    this.#turns.set(record.id, entry);
    const own = this.#options.resumeRequest?.(record, checkpoint?.context);
    const signal = this.#signalOf(entry, undefined);
    entry.signal = signal;
    const context: DaemonTurnContext = {
      agentId: record.agentId,
      prompt: record.prompt,
      source: record.source,
      ...definedFields(record, ['sourceId', 'attempt']),
      turnId: record.id,
      signal,
    };
    if (claimed.cancelRequested !== undefined) entry.controller.abort(new Error(claimed.cancelRequested));
    else if (this.#cancelledWith !== undefined) entry.controller.abort(this.#cancelledWith);
    let done: Promise<DaemonTurnSnapshot>;
    if (checkpoint === undefined) {
      entry.controller.abort(
        new Error('the turn could not be continued: its stored checkpoint is missing or unreadable'),
      );
      done = this.#run(entry, context, () => [], undefined, {
        items: [],
        approvals: new Map(),
        started: new Set(),
        instructions: undefined,
      });
    } else {
      done = this.#run(entry, context, own?.tools, own?.instructions ?? checkpoint.instructions, {
        items: checkpoint.items,
        approvals: new Map(claimed.approvals.map((approval) => [resumeKey(approval), approval])),
        started: new Set(checkpoint.started),
        instructions: own?.instructions ?? checkpoint.instructions,
      });
    }
    entry.done = done;
    this.#notify(entry, undefined);
    this.#prune();
    this.#options.log?.(
      `switchyard serve: continuing turn ${record.id} of agent ${record.agentId} (${record.source}${record.sourceId === undefined ? '' : ` ${record.sourceId}`}) after its approval${claimed.approvals.length === 1 ? '' : 's'}: ${claimed.approvals.map((approval) => `${approval.toolKey} ${approval.status}`).join(', ')}`,
    );
    return { id: record.id, done };
  }

  #push(entry: TurnEntry, event: DaemonTurnEvent): void {
    // A turn let go is another process's now: what its aborted loop does here is not its story.
    if (entry.letGo !== undefined) return;
    appendEvent(entry.events, event);
    for (const listener of entry.listeners) listener(event);
    this.#notify(entry, event);
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
   * Follows every turn of this process: `observer(snapshot, event)` for each event, and
   * `observer(snapshot, undefined)` when a turn starts or is continued here and when its end is
   * recorded. Returns an unsubscribe function.
   */
  observe(observer: (turn: DaemonTurnSnapshot, event: DaemonTurnEvent | undefined) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  async #run(
    entry: TurnEntry,
    context: DaemonTurnContext,
    turnTools: DaemonTurnRequest['tools'],
    turnInstructions: string | undefined,
    resume: ResumeState | undefined,
  ): Promise<DaemonTurnSnapshot> {
    try {
      await this.#options.beforeTurn?.(context);
      const tools = (await (turnTools ?? this.#options.tools)?.(context)) ?? [];
      const instructions =
        resume !== undefined
          ? resume.instructions
          : (turnInstructions ?? (await this.#options.instructions?.(context)));
      entry.instructions = instructions;
      const maxIterations =
        this.#options.maxIterations === undefined
          ? undefined
          : Math.max(1, this.#options.maxIterations - entry.offset.iterations);
      const approvals = this.#options.approvals;
      const run = runAgentLoop({
        model: this.#options.model,
        tools,
        input: resume?.items ?? context.prompt,
        signal: context.signal,
        telemetry: {
          agentName: context.agentId,
          attributes: {
            'switchyard.turn.id': context.turnId,
            'switchyard.turn.source': context.source,
            ...(context.sourceId === undefined ? {} : { 'switchyard.turn.source_id': context.sourceId }),
          },
          ...(context.traceParent === undefined
            ? {}
            : { parentContext: parentFromTraceParent(context.traceParent) }),
        },
        ...(instructions === undefined ? {} : { instructions }),
        ...(maxIterations === undefined ? {} : { maxIterations }),
        ...(this.#options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: this.#options.toolTimeoutMs }),
        ...(this.#options.maxParallelCalls === undefined
          ? {}
          : { maxParallelCalls: this.#options.maxParallelCalls }),
        ...(this.#options.toolSearch === undefined ? {} : { toolSearch: this.#options.toolSearch }),
        ...(approvals === undefined
          ? {}
          : { beforeToolCall: (call, tool) => this.#beforeToolCall(entry, approvals, call, tool, resume) }),
      });
      const offset = entry.offset.iterations;
      for await (const event of run) {
        if (event.type === 'model-request-end') {
          entry.snapshot.usage = addUsage(entry.snapshot.usage, event.usage);
          entry.snapshot.iterations = event.iteration + offset;
          // A new response: the calls let run before were the previous response's.
          entry.allowed.clear();
        }
        if (event.type === 'tool-call-start') entry.inFlight.add(event.itemIndex);
        if (event.type === 'tool-call-end') {
          entry.inFlight.delete(event.itemIndex);
          // Its output is in the transcript now: a waiting turn's checkpoint keeps it.
          if (entry.held.size > 0) this.#writeCheckpoint(entry, approvals);
        }
        this.#push(entry, serialiseEvent(event, offset));
      }
      const result = await run.result();
      entry.snapshot.status = result.status;
      entry.snapshot.output = result.output;
      entry.snapshot.usage = addUsage(entry.offset.usage, result.usage);
      entry.snapshot.iterations = result.iterations + offset;
      if (result.error !== undefined) entry.snapshot.error = result.error.message;
      // The reason a final answer was cut off goes where operators look for why a turn did not complete.
      if (result.incompleteReason !== undefined) {
        entry.snapshot.error = `the final response was cut off (${result.incompleteReason})`;
      }
    } catch (error) {
      // Building the tools or instructions failed: the turn fails, the daemon goes on.
      entry.snapshot.status = 'failed';
      entry.snapshot.error = errorMessage(error);
      this.#push(entry, {
        type: 'turn-end',
        status: 'failed',
        iterations: entry.snapshot.iterations,
        usage: entry.snapshot.usage,
        error: entry.snapshot.error,
      });
    }
    entry.deadline?.dispose();
    entry.listeners.clear();
    entry.retainedBytes = retainedSizeOf(entry);
    if (entry.letGo !== undefined) {
      // Another process continues it: nothing is recorded here, and it stays waiting in memory.
      entry.snapshot.status = 'waiting-approval';
      delete entry.snapshot.error;
      this.#options.log?.(
        `switchyard serve: turn ${entry.snapshot.id} of agent ${entry.snapshot.agent} ${entry.letGo === 'released' ? 'was let go while it waited for approval: any worker continues it once answered' : 'was taken over by another worker'}`,
      );
      return { ...entry.snapshot };
    }
    entry.snapshot.endedAt = new Date().toISOString();
    this.#logUnfinished(entry.snapshot);
    await this.#recordEnd(entry);
    this.#notify(entry, undefined);
    this.#prune();
    return { ...entry.snapshot };
  }

  /** The checkpoint of a turn with a held call: what another process needs to continue it. */
  #checkpointOf(entry: TurnEntry): TurnCheckpoint {
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

  #writeCheckpoint(entry: TurnEntry, approvals: DaemonApprovalOptions | undefined): Promise<void> {
    if (approvals === undefined) return Promise.resolve();
    entry.checkpointWrites = entry.checkpointWrites.then(async () => {
      if (entry.held.size === 0 || entry.letGo !== undefined) return;
      try {
        await approvals.store.checkpoint({
          turnId: entry.snapshot.id,
          workerId: this.workerId,
          checkpoint: this.#checkpointOf(entry),
        });
      } catch (error) {
        this.#options.log?.(
          `switchyard serve: could not update the checkpoint of ${entry.snapshot.id}: ${errorMessage(error)}`,
        );
      }
    });
    return entry.checkpointWrites;
  }

  /**
   * The approval policy in front of every call: allow, deny, or hold the call until an operator
   * answers (or the approval expires). A continued turn's held calls take their stored decisions.
   */
  async #beforeToolCall(
    entry: TurnEntry,
    approvals: DaemonApprovalOptions,
    call: ToolCallRequest,
    tool: AnyWorkerAgentTool,
    resume: ResumeState | undefined,
  ): Promise<ToolCallDecision> {
    entry.transcript = call.transcript;
    const key = toolKey(call);
    const item = call.itemIndex;
    const stored =
      resume?.approvals.get(resumeKey({ callIndex: item, callId: call.callId })) ??
      resume?.approvals.get(resumeKey({ callId: call.callId }));
    if (stored !== undefined) {
      resume?.approvals.delete(resumeKey(stored));
      return this.#actOn(entry, approvals, stored, call, key);
    }
    if (resume?.started.delete(item) === true) {
      // Let run by the process that stopped, and no output recorded: it may have run.
      if (tool.isReadOnly) {
        entry.allowed.add(item);
        return { allow: true };
      }
      return {
        allow: false,
        reason:
          'the worker running this turn stopped while this call was under way, so it may have run; it was not run again: check its effect before calling it again',
      };
    }
    const policy = approvals.policy(entry.snapshot.agent);
    const { decision, field } = decideByPolicy(policy, tool, key, entry.snapshot.source);
    if (decision === 'deny') {
      return {
        allow: false,
        reason: `the approval policy of agent ${entry.snapshot.agent} refuses ${key} (${field}: deny)`,
      };
    }
    if (decision === 'allow') {
      entry.allowed.add(item);
      // While another call waits, the checkpoint says this one was let run before it runs.
      if (entry.held.size > 0) await this.#writeCheckpoint(entry, approvals);
      return { allow: true };
    }
    let approval: ApprovalRecord;
    try {
      approval = await approvals.store.request({
        turnId: entry.snapshot.id,
        workerId: this.workerId,
        callId: call.callId,
        callIndex: item,
        toolKey: key,
        activity: activityOf(tool, call.params),
        arguments: call.params,
        approvers: policy.approvers,
        expiresInMs: policy.expiresInSeconds * 1000,
        checkpoint: this.#checkpointOf(entry),
      });
    } catch (error) {
      // Arguments that cannot be stored whole (too large, or text PostgreSQL cannot hold) land here:
      // nothing is held, or allowed, that an operator cannot be shown exactly.
      return {
        allow: false,
        reason: `this call needs an operator's approval, which could not be recorded (${errorMessage(error)}); it was not run`,
      };
    }
    if (approval.status === 'pending') {
      entry.held.set(item, approval);
      if (entry.held.size === 1) entry.deadline?.pause();
      entry.snapshot.status = 'waiting-approval';
      this.#push(entry, { type: 'approval-requested', approval: approvalView(approval) });
      // The checkpoint stored with the approval was taken before the loop's latest events reached
      // the log (the response's end, this request): store them too.
      void this.#writeCheckpoint(entry, approvals);
      entry.markDetached();
      const decided = await this.#waitForDecision(approval, entry.signal, approvals);
      entry.held.delete(item);
      if (entry.held.size === 0) {
        entry.deadline?.resume();
        if (entry.letGo === undefined) entry.snapshot.status = 'running';
      }
      if (decided === undefined) {
        return {
          allow: false,
          reason: 'the turn was aborted while this call waited for approval; it was not run',
        };
      }
      approval = decided;
    }
    return this.#actOn(entry, approvals, approval, call, key);
  }

  /**
   * Acts on a decided approval, once: runs an allowed call, gives any other its reason. An approval
   * runs only the call it was recorded for: same tool, same arguments as stored (what the operator
   * was shown), else the call is refused.
   */
  async #actOn(
    entry: TurnEntry,
    approvals: DaemonApprovalOptions,
    approval: ApprovalRecord,
    call: ToolCallRequest,
    key: string,
  ): Promise<ToolCallDecision> {
    let consumed: ApprovalRecord | undefined;
    try {
      consumed = await approvals.store.consume({ id: approval.id, workerId: this.workerId });
    } catch (error) {
      return {
        allow: false,
        reason: `its approval could not be read (${errorMessage(error)}); it was not run`,
      };
    }
    if (consumed === undefined) {
      if (approval.consumedBy !== undefined && approval.consumedBy !== this.workerId) {
        // A continued turn: the worker that stopped had taken this decision, and may have run the call.
        return {
          allow: false,
          reason: `the worker that ran this turn before (${approval.consumedBy}) had started this ${approval.status} call when it stopped, so it may have run; it was not run again: check its effect before calling it again`,
        };
      }
      return this.#notConsumed(entry, approval);
    }
    this.#push(entry, { type: 'approval-resolved', approval: approvalView(consumed) });
    if (consumed.status !== 'allowed') return { allow: false, reason: denialReason(consumed) };
    if (consumed.toolKey !== key || !sameArguments(consumed.arguments, call.params)) {
      this.#options.log?.(
        `switchyard serve: turn ${entry.snapshot.id}: approval ${consumed.id} was for ${consumed.toolKey} with other arguments than call ${call.callId} (${key}) has; the call was not run`,
      );
      return {
        allow: false,
        reason: `the approval an operator gave was for ${consumed.toolKey} with other arguments than this call has; it was not run`,
      };
    }
    entry.allowed.add(call.itemIndex);
    return { allow: true };
  }

  /**
   * A decided approval this worker could not take: another worker holds the turn now (this one was
   * taken for dead, so it runs nothing more), or its decision was acted on already; only the turn's
   * record tells which, and only a real take-over lets the turn go unrecorded here.
   */
  async #notConsumed(entry: TurnEntry, approval: ApprovalRecord): Promise<ToolCallDecision> {
    let holder: string | undefined;
    try {
      holder = (await this.#records?.get(entry.snapshot.id))?.workerId;
    } catch (error) {
      this.#options.log?.(
        `switchyard serve: could not read turn ${entry.snapshot.id} to see who holds it: ${errorMessage(error)}`,
      );
    }
    if (holder !== undefined && holder !== this.workerId) {
      entry.letGo = 'taken-over';
      entry.controller.abort(new Error(`another worker (${holder}) took this turn over`));
      return { allow: false, reason: 'another worker took this turn over' };
    }
    return {
      allow: false,
      reason: `its approval (${approval.id}, ${approval.status}) had already been acted on, so it was not run again`,
    };
  }

  /**
   * Resolves with the approval once decided (answered anywhere, or expired), or undefined when
   * `signal` aborts first.
   */
  #waitForDecision(
    approval: ApprovalRecord,
    signal: AbortSignal,
    approvals: DaemonApprovalOptions,
  ): Promise<ApprovalRecord | undefined> {
    return new Promise((resolve) => {
      const finish = (record: ApprovalRecord | undefined) => {
        signal.removeEventListener('abort', onAbort);
        this.#waiters.delete(approval.id);
        if (this.#waiters.size === 0) this.#stopPolling();
        resolve(record);
      };
      const onAbort = () => finish(undefined);
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.set(approval.id, { expiresAt: Date.parse(approval.expiresAt), resolve: finish });
      if (this.#pollTimer === undefined) {
        this.#pollTimer = setInterval(() => void this.#poll(approvals), approvals.pollMs ?? 1000);
        this.#pollTimer.unref();
      }
    });
  }

  #stopPolling(): void {
    clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  async #poll(approvals: DaemonApprovalOptions): Promise<void> {
    if (this.#polling || this.#waiters.size === 0) return;
    this.#polling = true;
    try {
      const now = Date.now();
      if ([...this.#waiters.values()].some((waiter) => waiter.expiresAt <= now))
        await approvals.store.expireDue();
      for (const record of await approvals.store.getMany([...this.#waiters.keys()])) {
        if (record.status !== 'pending') this.#waiters.get(record.id)?.resolve(record);
      }
    } catch (error) {
      this.#options.log?.(`switchyard serve: could not check held calls' approvals: ${errorMessage(error)}`);
    } finally {
      this.#polling = false;
    }
  }

  /** An approval decided by this process (its HTTP API): a call of this process waiting on it goes on now. */
  notifyDecision(record: ApprovalRecord): void {
    if (record.status !== 'pending') this.#waiters.get(record.id)?.resolve(record);
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
      status: snapshot.status as Exclude<DaemonTurnStatus, 'running' | 'waiting-approval' | 'interrupted'>,
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

  /** Drops the oldest finished turns while more than `maxRetainedTurns` or `maxRetainedTurnBytes` are kept. */
  #prune(): void {
    let finished = 0;
    let bytes = 0;
    for (const entry of this.#turns.values()) {
      if (this.#isOpen(entry)) continue;
      finished += 1;
      bytes += entry.retainedBytes;
    }
    for (const [id, entry] of this.#turns) {
      if (finished <= this.#maxRetained && bytes <= this.#maxRetainedBytes) break;
      if (this.#isOpen(entry)) continue;
      this.#turns.delete(id);
      finished -= 1;
      bytes -= entry.retainedBytes;
    }
  }

  /** The finished turns kept in memory: how many, and their size as `maxRetainedTurnBytes` counts it. */
  retained(): { turns: number; bytes: number } {
    let turns = 0;
    let bytes = 0;
    for (const entry of this.#turns.values()) {
      if (this.#isOpen(entry)) continue;
      turns += 1;
      bytes += entry.retainedBytes;
    }
    return { turns, bytes };
  }

  /** Running or waiting in this process (not let go). */
  #isOpen(entry: TurnEntry): boolean {
    return (
      entry.letGo === undefined &&
      (entry.snapshot.status === 'running' || entry.snapshot.status === 'waiting-approval')
    );
  }

  /** The turn's current snapshot from memory (this process's recent turns), or undefined. */
  get(id: string): DaemonTurnSnapshot | undefined {
    const entry = this.#turns.get(id);
    return entry === undefined ? undefined : { ...entry.snapshot };
  }

  /**
   * The turn's snapshot: from memory when this process runs it or ran it recently, else from the
   * turn records (turns of earlier runs and of other processes on the same database), else undefined.
   */
  async find(id: string): Promise<DaemonTurnSnapshot | undefined> {
    const entry = this.#turns.get(id);
    if ((entry !== undefined && entry.letGo === undefined) || this.#records === undefined) {
      return entry === undefined ? undefined : { ...entry.snapshot };
    }
    const record = await this.#records.get(id);
    return record === undefined ? undefined : snapshotOf(record);
  }

  /** Whether this process has the turn in memory and its own (its events can be followed live). */
  has(id: string): boolean {
    const entry = this.#turns.get(id);
    return entry !== undefined && entry.letGo === undefined;
  }

  /**
   * A turn's event log from the records (text deltas of one request joined), for a turn not in
   * memory, with the outcomes of calls recorded by an older worker read as today's
   * (`upgradeRecordedEvents`); undefined when unknown or not recorded.
   */
  async recordedEvents(id: string): Promise<DaemonTurnEvent[] | undefined> {
    const log = await this.#records?.events(id);
    return log === undefined ? undefined : upgradeRecordedEvents(log.events);
  }

  /**
   * Refreshes the heartbeat of this process's open turns (running or waiting) in the records, and
   * aborts those the records say should stop (a cancellation asked for through any process, or a
   * detached unit cancelled or handed to another attempt).
   */
  async heartbeat(): Promise<void> {
    const open: string[] = [];
    for (const [id, entry] of this.#turns) if (this.#isOpen(entry)) open.push(id);
    const answer = await this.#records?.heartbeat(open, { workerId: this.workerId });
    for (const { id, reason } of answer?.stop ?? []) {
      const entry = this.#turns.get(id);
      if (entry !== undefined && this.#isOpen(entry) && !entry.controller.signal.aborted) {
        entry.controller.abort(new Error(reason));
      }
    }
  }

  /**
   * Aborts a turn of this process with `reason`; false when it is not running here. Each pending
   * call still gets a "cancelled" output; a held call's approval is cancelled when its end is recorded.
   */
  cancel(id: string, reason: string): boolean {
    const entry = this.#turns.get(id);
    if (entry === undefined || !this.#isOpen(entry)) return false;
    entry.controller.abort(new Error(reason));
    return true;
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
    if (!this.#isOpen(entry)) return { past, live: false, stop: () => {} };
    entry.listeners.add(listener);
    return { past, live: true, stop: () => entry.listeners.delete(listener) };
  }

  /** Snapshots of every turn kept in memory, oldest first. */
  list(): DaemonTurnSnapshot[] {
    return [...this.#turns.values()].map((entry) => ({ ...entry.snapshot }));
  }

  /** Turns running or waiting for approval in this process. */
  get running(): number {
    let count = 0;
    for (const entry of this.#turns.values()) if (this.#isOpen(entry)) count += 1;
    return count;
  }

  /**
   * Resolves once every open turn has ended or waits for approval with no call under way: the
   * moment waiting turns can be let go cleanly at shutdown.
   */
  async quiescent(): Promise<void> {
    for (;;) {
      const busy = [...this.#turns.values()].filter(
        (entry) => this.#isOpen(entry) && (entry.held.size === 0 || entry.inFlight.size > 0),
      );
      if (busy.length === 0 && this.#starting.size === 0) return;
      await Promise.race([
        ...busy.map((entry) => entry.done),
        ...this.#starting,
        new Promise((resolve) => setTimeout(resolve, 100)),
      ]);
    }
  }

  /**
   * Lets every turn waiting for approval go (the worker shuts down): each one's latest checkpoint is
   * stored and it is marked released, so whichever worker claims it once its approvals are decided
   * continues it; here its loop is aborted and nothing is recorded. Resolves with how many.
   */
  async releaseWaiting(): Promise<number> {
    const approvals = this.#options.approvals;
    if (approvals === undefined) return 0;
    let released = 0;
    for (const entry of this.#turns.values()) {
      if (!this.#isOpen(entry) || entry.held.size === 0) continue;
      await entry.checkpointWrites;
      try {
        const ok = await approvals.store.release({
          turnId: entry.snapshot.id,
          workerId: this.workerId,
          checkpoint: this.#checkpointOf(entry),
        });
        if (!ok) continue;
      } catch (error) {
        // Not released: it stays waiting, and is continued once its heartbeat goes stale.
        this.#options.log?.(
          `switchyard serve: could not let ${entry.snapshot.id} go: ${errorMessage(error)}`,
        );
      }
      entry.letGo = 'released';
      entry.controller.abort(new Error('the worker shut down while the turn waited for approval'));
      released += 1;
    }
    return released;
  }

  /** Aborts every running turn with `reason`, and every turn whose start is under way. */
  cancelAll(reason: Error): void {
    this.#cancelledWith = reason;
    for (const entry of this.#turns.values()) {
      if (this.#isOpen(entry)) entry.controller.abort(reason);
    }
  }

  /** Resolves when every turn started so far (its start under way included) has ended and is recorded. */
  async settled(): Promise<void> {
    while (this.#starting.size > 0 || this.running > 0) {
      await Promise.allSettled([...this.#starting, ...[...this.#turns.values()].map((entry) => entry.done)]);
    }
    await Promise.all([...this.#turns.values()].map((entry) => entry.done));
    this.#stopPolling();
  }
}
