import { randomUUID } from 'node:crypto';
import {
  type ApprovalRecord,
  type ResumableTurn,
  type TurnRecord,
  turnTitleOf,
} from '@switchyard/control-plane';
import { type AgentEvent, runAgentLoop } from '@switchyard/core';
import { addUsage, ZERO_USAGE } from '@switchyard/core/internal';
import { ApprovalGate } from './approval-gate';
import type {
  DaemonTurnContext,
  DaemonTurnEvent,
  DaemonTurnRecords,
  DaemonTurnRequest,
  DaemonTurnRunnerOptions,
  DaemonTurnSnapshot,
} from './daemon-turn-types';
import { definedFields } from './defined-fields';
import { errorMessage } from './error-message';
import { EventLoopShare } from './event-loop-share';
import { heldTurnView } from './held-turn-view';
import { SlotWaiters } from './slot-waiters';
import { DEFAULT_SLOT_POLL_MS, turnBudgetOf, waitForSlot } from './turn-budgets';
import type { ResumeState } from './turn-checkpoint';
import { applyLoopResult, createTurnEntry, isOpenTurn, type TurnEntry, turnSignalOf } from './turn-entry';
import { describeUnfinishedTurn, recordTurnEnd, serialiseEvent } from './turn-event-recording';
import { openTurnJournal } from './turn-journal';
import { loopOptionsOf } from './turn-loop-options';
import {
  continuedTurnOf,
  describeContinuation,
  interruptedTurnOf,
  releaseHeldTurn,
  resumeStateOf,
  whyNotContinued,
} from './turn-recovery';
import { type TurnObserver, TurnRegistry } from './turn-registry';

// The daemon's turns are four rooms: the registry of live and retained turns (turn-registry.ts), the
// approval gate (approval-gate.ts), recovery and claiming (turn-recovery.ts) and event recording
// (turn-event-recording.ts). This file runs a turn's loop through them; importers keep using it.
export type {
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  DaemonApprovalOptions,
  DaemonTurnContext,
  DaemonTurnEndEvent,
  DaemonTurnEvent,
  DaemonTurnRecords,
  DaemonTurnRequest,
  DaemonTurnRunnerOptions,
  DaemonTurnSnapshot,
  DaemonTurnSource,
  DaemonTurnStatus,
} from './daemon-turn-types';
export { appendEvent, compactEvents } from './turn-event-recording';
export { snapshotOf } from './turn-registry';

/** This process's id in the turn records: every daemon in the process shares it. */
export const PROCESS_WORKER_ID = `worker_${randomUUID()}`;

/** What `#run` builds a turn's loop from: its own tools and instructions, or a continued turn's state. */
interface TurnPlan {
  tools: DaemonTurnRequest['tools'];
  instructions: string | undefined;
  resume: ResumeState | undefined;
  /** Recorded by `start` just now as a first attempt: its journal has nothing to read. */
  fresh?: boolean;
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
  readonly #registry: TurnRegistry;
  readonly #records: DaemonTurnRecords | undefined;
  readonly #gate: ApprovalGate | undefined;
  /** The event loop's time for the steps of every turn here, and the API's requests that start one. */
  readonly share = new EventLoopShare();
  /** Turns waiting for a slot among their agent's turns at once (with budgets). */
  readonly #slots: SlotWaiters | undefined;
  /** Starts waiting for their record to be written. */
  readonly #starting = new Set<Promise<unknown>>();
  /** Set by `cancelAll`: a turn whose start was under way then is cancelled as it starts. */
  #cancelledWith: Error | undefined;
  /** This process's id in the turn records. */
  readonly workerId: string;

  constructor(options: DaemonTurnRunnerOptions) {
    this.#options = options;
    this.#records = options.records;
    this.workerId = options.workerId ?? PROCESS_WORKER_ID;
    const { journals } = options;
    this.#registry = new TurnRegistry({
      ...definedFields(options, ['maxRetainedTurns', 'maxRetainedTurnBytes', 'records']),
      ...(journals === undefined
        ? {}
        : {
            heldView: (turnId: string, events: boolean) =>
              heldTurnView({ journals, approvals: options.approvals?.store, turnId, events }),
          }),
    });
    this.#slots =
      options.budgets === undefined
        ? undefined
        : new SlotWaiters(options.budgets.store, options.budgets.slotPollMs ?? DEFAULT_SLOT_POLL_MS);
    this.#gate =
      options.approvals === undefined
        ? undefined
        : new ApprovalGate({
            approvals: options.approvals,
            workerId: this.workerId,
            ...definedFields(options, ['records', 'log']),
            push: (entry, event) => this.#registry.push(entry, event),
            letGo: (entry, letGo, reason) => this.#registry.letGo(entry, letGo, reason),
          });
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
    const createdAt = await this.#recordStart(id, request);
    const entry = createTurnEntry(
      {
        id,
        agent: request.agentId,
        source: request.source,
        ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
        title: turnTitleOf(request.prompt),
        status: 'running',
        output: '',
        usage: ZERO_USAGE,
        iterations: 0,
        createdAt,
      },
      this.#options.turnTimeoutMs,
    );
    entry.resumeContext = request.resumeContext;
    const signal = turnSignalOf(entry, request.signal);
    entry.signal = signal;
    this.#registry.add(entry);
    if (this.#cancelledWith !== undefined) entry.controller.abort(this.#cancelledWith);
    const { tools, instructions, signal: _sourceSignal, resumeContext: _context, ...described } = request;
    const done = this.#run(
      entry,
      { ...described, turnId: id, signal },
      { tools, instructions, resume: undefined, fresh: (request.attempt ?? 1) === 1 },
    );
    entry.done = done;
    this.#registry.changed(entry);
    return { id, done, detached: entry.detached };
  }

  /** Records the turn as running (when there are records): resolves with its start time, the record's clock. */
  async #recordStart(id: string, request: DaemonTurnRequest): Promise<string> {
    if (this.#records === undefined) return new Date().toISOString();
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
      return (await recorded).createdAt;
    } finally {
      this.#starting.delete(recorded);
    }
  }

  /**
   * Continues a turn another process left waiting for approval (its process stopped, or let it go
   * at shutdown), claimed by this one (`approvals.claimResumable`): from its prompt and its journal,
   * as `resumeInterrupted` does (recorded responses replayed, never requested again; recorded outputs
   * reused, never run again; calls started with no output in doubt), each held call, reached again,
   * decided by its stored approval (acted on once) instead of being held again; its time spent,
   * instructions and request context come from its checkpoint. The upgrade path: a turn an older
   * worker held (a transcript checkpoint, version 1 or 2) goes on from that transcript, its events
   * so far kept. A turn whose cancellation was asked for is ended `aborted` without a model request.
   *
   * Contract: resolves with the turn's id and a promise of its final snapshot (never rejects); a turn
   * whose checkpoint cannot be read, or (not an older worker's) with no `journals` to replay it from,
   * is ended without a model request, saying why.
   */
  async resume(claimed: ResumableTurn): Promise<{ id: string; done: Promise<DaemonTurnSnapshot> }> {
    const record = claimed.turn;
    const { entry, context, checkpoint } = continuedTurnOf(claimed, this.#options.turnTimeoutMs);
    this.#registry.add(entry);
    const own = this.#options.resumeRequest?.(record, checkpoint?.context);
    if (claimed.cancelRequested !== undefined) entry.controller.abort(new Error(claimed.cancelRequested));
    else if (this.#cancelledWith !== undefined) entry.controller.abort(this.#cancelledWith);
    const cannot = whyNotContinued(checkpoint, this.#options.journals !== undefined);
    if (cannot !== undefined) entry.controller.abort(new Error(cannot));
    const done = this.#run(entry, context, {
      tools: checkpoint === undefined ? () => [] : own?.tools,
      instructions: undefined,
      resume: resumeStateOf(claimed, checkpoint, own?.instructions),
    });
    entry.done = done;
    this.#registry.changed(entry);
    this.#options.log?.(describeContinuation(claimed));
    return { id: record.id, done };
  }

  /**
   * Continues a turn whose worker stopped mid-turn, claimed by this process
   * (`turns.claimInterrupted`): from its prompt and its journal, so recorded model responses are
   * replayed (not asked for again), recorded outputs reused (not run again), and a call started with
   * no output recorded is in doubt. Its tools and instructions are built again as for a new turn.
   *
   * Contract: resolves with the turn's id and a promise of its final snapshot (never rejects); a
   * turn whose cancellation was asked for is ended `aborted` without a model request.
   */
  resumeInterrupted(record: TurnRecord): { id: string; done: Promise<DaemonTurnSnapshot> } {
    const { entry, context } = interruptedTurnOf(record, this.#options.turnTimeoutMs);
    this.#registry.add(entry);
    if (record.cancelRequested !== undefined) entry.controller.abort(new Error(record.cancelRequested));
    else if (this.#cancelledWith !== undefined) entry.controller.abort(this.#cancelledWith);
    const done = this.#run(entry, context, { tools: undefined, instructions: undefined, resume: undefined });
    entry.done = done;
    this.#registry.changed(entry);
    this.#options.log?.(
      `switchyard serve: resuming turn ${record.id} of agent ${record.agentId} from its journal (its worker ${record.workerId === this.workerId ? 'restarted' : 'stopped'}; resumed ${record.resumedCount} time(s))`,
    );
    return { id: record.id, done };
  }

  /**
   * Follows every turn of this process: `observer(snapshot, event)` for each event, and
   * `observer(snapshot, undefined)` when a turn starts or is continued here and when its end is
   * recorded. Returns an unsubscribe function.
   */
  observe(observer: TurnObserver): () => void {
    return this.#registry.observe(observer);
  }

  async #run(entry: TurnEntry, context: DaemonTurnContext, plan: TurnPlan): Promise<DaemonTurnSnapshot> {
    try {
      // A burst of new turns is composed a share at a time: the API answers its requests meanwhile.
      await this.share.wait();
      await this.#options.beforeTurn?.(context);
      const { budgets } = this.#options;
      // Its slot among its agent's turns at once before anything is built: a queued turn costs nothing.
      if (budgets !== undefined && this.#slots !== undefined && this.#records !== undefined) {
        await waitForSlot(entry, context, budgets, this.#slots, this.#options.log);
      }
      const tools = (await (plan.tools ?? this.#options.tools)?.(context)) ?? [];
      const instructions =
        plan.resume !== undefined
          ? plan.resume.instructions
          : (plan.instructions ?? (await this.#options.instructions?.(context)));
      entry.instructions = instructions;
      const journal = await openTurnJournal({
        ...definedFields(this.#options, ['journals', 'log']),
        ...(this.#options.journalHeldTurnsOnly === true ? { heldOnly: true } : {}),
        records: this.#records,
        workerId: this.workerId,
        entry,
        turnId: context.turnId,
        resume: plan.resume,
        ...(plan.fresh === true ? { fresh: true } : {}),
      });
      const run = runAgentLoop({
        ...loopOptionsOf({
          options: this.#options,
          share: this.share,
          gate: this.#gate,
          entry,
          context,
          tools,
          instructions,
          resume: plan.resume,
        }),
        turnId: context.turnId,
        ...(journal === undefined ? {} : { journal }),
        ...(budgets === undefined || this.#records === undefined
          ? {}
          : { budget: turnBudgetOf(entry, context, budgets) }),
      });
      for await (const event of run) this.#onEvent(entry, event);
      applyLoopResult(entry, await run.result());
    } catch (error) {
      // Building the tools or instructions failed: the turn fails, the daemon goes on.
      entry.snapshot.status = 'failed';
      entry.snapshot.error = errorMessage(error);
      this.#registry.push(entry, {
        type: 'turn-end',
        status: 'failed',
        iterations: entry.snapshot.iterations,
        usage: entry.snapshot.usage,
        error: entry.snapshot.error,
      });
    }
    return this.#end(entry);
  }

  /** One event of the turn's loop: the snapshot and the calls under way follow it, then it is logged and streamed. */
  #onEvent(entry: TurnEntry, event: AgentEvent): void {
    const offset = entry.offset.iterations;
    if (event.type === 'model-request-end') {
      entry.snapshot.usage = addUsage(entry.snapshot.usage, event.usage);
      entry.snapshot.iterations = event.iteration + offset;
      // A new response: the calls let run before were the previous response's.
      entry.allowed.clear();
    }
    if (event.type === 'tool-call-start') entry.inFlight.add(event.itemIndex);
    if (event.type === 'tool-call-end') entry.inFlight.delete(event.itemIndex);
    this.#registry.push(entry, serialiseEvent(event, offset));
  }

  /** The loop ended: the turn's end is recorded here, unless it was let go to another process. */
  async #end(entry: TurnEntry): Promise<DaemonTurnSnapshot> {
    entry.deadline?.dispose();
    this.#registry.ended(entry);
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
    const unfinished = describeUnfinishedTurn(entry.snapshot);
    if (unfinished !== undefined) this.#options.log?.(unfinished);
    if (this.#records !== undefined) {
      await recordTurnEnd(this.#records, entry, definedFields(this.#options, ['log']));
      // Its slot among its agent's turns at once is free now: the next turn waiting here asks.
      this.#slots?.slotFreed(entry.snapshot.agent);
    }
    this.#registry.changed(entry);
    return { ...entry.snapshot };
  }

  /** An approval decided by this process (its HTTP API): a call of this process waiting on it goes on now. */
  notifyDecision(record: ApprovalRecord): void {
    this.#gate?.notifyDecision(record);
  }

  /** The finished turns kept in memory: how many, and their size as `maxRetainedTurnBytes` counts it. */
  retained(): { turns: number; bytes: number } {
    return this.#registry.retained();
  }

  /** The turn's current snapshot from memory (this process's recent turns), or undefined. */
  get(id: string): DaemonTurnSnapshot | undefined {
    return this.#registry.get(id);
  }

  /**
   * The turn's snapshot: from memory when this process runs it or ran it recently, else from the
   * turn records (turns of earlier runs and of other processes on the same database), else undefined.
   */
  find(id: string): Promise<DaemonTurnSnapshot | undefined> {
    return this.#registry.find(id);
  }

  /** Whether this process has the turn in memory and its own (its events can be followed live). */
  has(id: string): boolean {
    return this.#registry.has(id);
  }

  /**
   * A turn's event log from the records (text deltas of one request joined), for a turn not in
   * memory, with the outcomes of calls recorded by an older worker read as today's
   * (`upgradeRecordedEvents`); undefined when unknown or not recorded.
   */
  recordedEvents(id: string): Promise<DaemonTurnEvent[] | undefined> {
    return this.#registry.recordedEvents(id);
  }

  /**
   * Refreshes the heartbeat of this process's open turns (running or waiting) in the records, and
   * aborts those the records say should stop (a cancellation asked for through any process, or a
   * detached unit cancelled or handed to another attempt).
   */
  async heartbeat(): Promise<void> {
    const open = this.#registry.open().map((entry) => entry.snapshot.id);
    const answer = await this.#records?.heartbeat(open, { workerId: this.workerId });
    for (const { id, reason } of answer?.stop ?? []) {
      const entry = this.#registry.entry(id);
      if (entry !== undefined && isOpenTurn(entry) && !entry.controller.signal.aborted) {
        entry.controller.abort(new Error(reason));
      }
    }
  }

  /**
   * Aborts a turn of this process with `reason`; false when it is not running here. Each pending
   * call still gets a "cancelled" output; a held call's approval is cancelled when its end is recorded.
   */
  cancel(id: string, reason: string): boolean {
    const entry = this.#registry.entry(id);
    if (entry === undefined || !isOpenTurn(entry)) return false;
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
    return this.#registry.follow(id, listener);
  }

  /** Snapshots of every turn kept in memory, oldest first. */
  list(): DaemonTurnSnapshot[] {
    return this.#registry.list();
  }

  /** Turns running or waiting for approval in this process. */
  get running(): number {
    return this.#registry.running;
  }

  /**
   * Resolves once every open turn has ended or waits for approval with no call under way: the
   * moment waiting turns can be let go cleanly at shutdown.
   */
  async quiescent(): Promise<void> {
    for (;;) {
      const busy = this.#registry.open().filter((entry) => entry.held.size === 0 || entry.inFlight.size > 0);
      if (busy.length === 0 && this.#starting.size === 0) return;
      await Promise.race([
        ...busy.map((entry) => entry.done),
        ...this.#starting,
        new Promise((resolve) => setTimeout(resolve, 100)),
      ]);
    }
  }

  /**
   * Lets every turn waiting for approval go (the worker shuts down): each one's checkpoint is stored
   * (its steps are in its journal) and it is marked released, so whichever worker claims it once its approvals are decided
   * continues it; here its loop is aborted and nothing is recorded. Resolves with how many.
   */
  async releaseWaiting(): Promise<number> {
    const approvals = this.#options.approvals;
    if (approvals === undefined) return 0;
    const letGo = this.#registry.letGo.bind(this.#registry);
    let released = 0;
    for (const entry of this.#registry.open()) {
      if (!isOpenTurn(entry) || entry.held.size === 0) continue;
      const options = { store: approvals.store, workerId: this.workerId, letGo };
      if (await releaseHeldTurn(entry, { ...options, ...definedFields(this.#options, ['log']) }))
        released += 1;
    }
    return released;
  }

  /** Aborts every running turn with `reason`, and every turn whose start is under way. */
  cancelAll(reason: Error): void {
    this.#cancelledWith = reason;
    for (const entry of this.#registry.open()) entry.controller.abort(reason);
  }

  /** Resolves when every turn started so far (its start under way included) has ended and is recorded. */
  async settled(): Promise<void> {
    while (this.#starting.size > 0 || this.running > 0) {
      await Promise.allSettled([
        ...this.#starting,
        ...[...this.#registry.entries()].map((entry) => entry.done),
      ]);
    }
    await Promise.all([...this.#registry.entries()].map((entry) => entry.done));
    this.#gate?.stop();
  }
}
