import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { addUsage, ZERO_USAGE } from '../events/add-usage';
import type { AgentEvent, AgentRunStatus, AgentUsage } from '../events/agent-event';
import type { ModelRequest, ModelResponse, ResponsesModel } from '../model/responses-model';
import type { TurnToolSet } from '../tool-search/turn-tool-set';
import type { CallLimits } from './call-limits';
import { dispatchToolCalls } from './dispatch';
import {
  type BeforeToolCall,
  executeToolCall,
  type ToolCallRecord,
  type ToolCallScope,
  type TurnToolCall,
} from './execute-tool-call';
import { refuseDuplicateCallId, reuseRecordedOutput, unrunToolCall } from './finish-tool-call';
import type { AgentRunResult } from './run-agent-loop';
import { askBudget, type TurnBudget, tellBudget } from './turn-budget';
import {
  callsOf,
  isParallelCall,
  outputText,
  pendingFunctionCalls,
  sharedCallIds,
  startsWithResponse,
} from './turn-calls';
import { type JournalCallStart, JournalReplay, type JournalResponse, type TurnJournal } from './turn-journal';

/**
 * What watches a turn from outside it (core's is `TurnTelemetry`: spans and metrics). The loop runs
 * the turn, each model request and each tool call it dispatches inside it, and shows it every event
 * before the run's consumer sees it.
 *
 * Contract: an implementation runs what it is given exactly once and settles as it settles, and
 * `onEvent` never throws: it observes the turn and changes nothing in it.
 */
export interface TurnInstrumentation {
  /** Runs the whole turn, from `turn-start` to `turn-end`. */
  turn<T>(body: () => Promise<T>): Promise<T>;
  /**
   * Runs one model request; `items` is the transcript it sends. `replayed`: the response comes from
   * the turn's journal, and no request is sent.
   */
  modelRequest(
    iteration: number,
    items: readonly ResponseInputItem[],
    request: () => Promise<ModelResponse>,
    replayed?: boolean,
  ): Promise<ModelResponse>;
  /** Runs one dispatched call: lookup, validation, `beforeToolCall` and `execute`, to its `tool-call-end`. */
  toolCall<T>(call: TurnToolCall, run: () => Promise<T>): Promise<T>;
  /** Sees every event the turn emits, in order (a call's outcome, approval and refusal are on its `tool-call-end`). */
  onEvent(event: AgentEvent): void;
}

/** Where a turn's events go once the instrumentation has seen them: the run's channel. */
export interface TurnEventSink {
  /** Takes one event. */
  push(event: AgentEvent): void;
  /** No more events: the turn has ended. */
  close(): void;
}

/** What the loop proper is given: everything `runAgentLoop` checked, resolved and built. */
export interface TurnLoopInput {
  /** The model to send requests to. */
  model: ResponsesModel;
  /** The turn's tools: lookup by key, the next request's `tools`, and the tools calls loaded. */
  tools: TurnToolSet;
  /** What watches the turn (spans and metrics). */
  instrumentation: TurnInstrumentation;
  /** Where events go. */
  events: TurnEventSink;
  /** The transcript so far, the input as items: the loop appends to it and it becomes `result.items`. */
  items: ResponseInputItem[];
  /** System instructions, sent with every request. */
  instructions: string | undefined;
  /** The caller's signal, as each model request takes it (none: the turn is never aborted). */
  signal: AbortSignal | undefined;
  /** Most model requests. */
  maxIterations: number;
  /** Most calls of one response running at once. */
  maxParallelCalls: number;
  /** Every call's limits. */
  limits: CallLimits;
  /** The policy hook, when set. */
  beforeToolCall: BeforeToolCall | undefined;
  /** What the turn may spend, when set. */
  budget: TurnBudget | undefined;
  /** Where each step is recorded before the loop moves on, and what earlier attempts recorded. */
  journal: TurnJournal | undefined;
  /** The turn's id, the stable part of every call's `context.idempotencyKey`. */
  turnId: string;
}

/** How a turn ends, before `turn-end` is emitted. */
interface TurnEnding {
  status: AgentRunStatus;
  error?: Error;
}

/**
 * The loop proper: dispatches the calls without an output (a continued transcript's, then each
 * response's), sends the next request, records its response, and again, until a response has no
 * call, a result ends the turn, the turn is aborted, the iterations run out or a request fails.
 *
 * Contract: resolves once `turn-end` has been emitted and the events closed; never rejects (a
 * defect in the loop itself ends the turn `failed`).
 */
export function runTurnLoop(input: TurnLoopInput): Promise<AgentRunResult> {
  const loop = new TurnLoop(input);
  return input.instrumentation.turn(() => loop.run());
}

class TurnLoop {
  readonly #input: TurnLoopInput;
  // Tools always get a signal; one that never aborts when the turn has none.
  readonly #signal: AbortSignal;
  readonly #items: ResponseInputItem[];
  readonly #scope: ToolCallScope;
  #usage: AgentUsage = ZERO_USAGE;
  #iterations = 0;
  #pendingFrom = 0;
  #last: ModelResponse | undefined;
  /** The last response's output text (the turn's output). */
  #lastText = '';
  readonly #replay: JournalReplay;
  /** Why the journal could not be written, once it could not: the turn ends `failed` with it. */
  #journalFailure: Error | undefined;
  // The outputs of the calls being dispatched, by item index, as they finish: `transcript()` adds
  // them (in call order) to the items, which get them only once the whole response is dispatched.
  #dispatching: readonly TurnToolCall[] = [];
  readonly #finished = new Map<number, ResponseInputItem.FunctionCallOutput>();
  /** Item indexes of calls whose start was recorded with their response, not run yet. */
  readonly #startedWithResponse = new Set<number>();
  /** The write of the last dispatched call's output, if still under way (never rejects). */
  #lastOutputWritten: Promise<void> = Promise.resolve();

  constructor(input: TurnLoopInput) {
    this.#input = input;
    this.#signal = input.signal ?? new AbortController().signal;
    this.#items = input.items;
    this.#replay = new JournalReplay(input.journal?.recorded);
    const { journal } = input;
    const idempotencyKey = (call: TurnToolCall) => this.#idempotencyKey(call);
    this.#scope = {
      ...input.limits,
      tools: input.tools,
      signal: this.#signal,
      beforeToolCall: input.beforeToolCall,
      emit: this.#emit,
      recordOutput: (call, output) => {
        this.#finished.set(call.itemIndex, output);
      },
      transcript: () => this.#transcript(),
      idempotencyKey,
      ...(journal === undefined
        ? {}
        : {
            beforeExecute: async (call: TurnToolCall) => {
              // Recorded with its response already (`JournalResponse.started`).
              if (this.#startedWithResponse.delete(call.itemIndex)) return;
              await this.#journaled(
                journal.callStarted({
                  itemIndex: call.itemIndex,
                  callId: call.call.call_id,
                  key: call.key,
                  idempotencyKey: idempotencyKey(call),
                }),
              );
            },
          }),
    };
  }

  /**
   * The call's `context.idempotencyKey`: an earlier attempt's key when it started the call (a unit's
   * next attempt is a turn of its own id), so the same on every attempt.
   */
  #idempotencyKey(call: TurnToolCall): string {
    return this.#replay.startedKey(call.itemIndex) ?? `${this.#input.turnId}:${call.itemIndex}`;
  }

  /** Awaits a journal write; a failed one is kept (the turn ends with it) and rethrown. */
  async #journaled(write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (caught) {
      const error = toError(caught);
      this.#journalFailure ??= new Error(`the turn's journal could not be written: ${error.message}`, {
        cause: error,
      });
      throw error;
    }
  }

  readonly #emit = (event: AgentEvent): void => {
    this.#input.instrumentation.onEvent(event);
    this.#input.events.push(event);
  };

  async run(): Promise<AgentRunResult> {
    const { tools } = this.#input;
    this.#emit({ type: 'turn-start', toolCount: tools.toolCount, toolSearch: tools.toolSearch });
    let ending: TurnEnding;
    try {
      ending = await this.#iterate();
    } catch (caught) {
      // Only a defect in the loop itself lands here; the turn still ends with an event.
      ending = { status: 'failed', error: toError(caught) };
    }
    return this.#end(ending);
  }

  /** Dispatch, request, and again, until one of them ends the turn. */
  async #iterate(): Promise<TurnEnding> {
    // A transcript that ends with calls without outputs (a turn continued after its process stopped
    // while a call waited for approval) has them dispatched before the first request.
    let calls = pendingFunctionCalls(this.#items);
    let finishReason: string | undefined;
    for (;;) {
      if (calls.length > 0) {
        const endedByTool = await this.#dispatch(calls, finishReason);
        // Going on to a request, the last output's write is awaited with the budget (`#request`).
        if (endedByTool || this.#signal.aborted || this.#iterations >= this.#input.maxIterations) {
          await this.#lastOutputWritten;
        }
        if (this.#journalFailure !== undefined) return { status: 'failed', error: this.#journalFailure };
        if (this.#signal.aborted) return { status: 'aborted' };
        if (endedByTool) return { status: 'ended-by-tool' };
      }
      if (this.#signal.aborted) return { status: 'aborted' };
      if (this.#iterations >= this.#input.maxIterations) return { status: 'max-iterations' };
      const appendedFrom = this.#items.length;
      const response = await this.#request();
      if (isEnding(response)) return response;
      // The calls are dispatched as recorded in the transcript, which is what a continued turn
      // dispatches too: each keeps the index of its item there.
      calls = pendingFunctionCalls(this.#items, appendedFrom);
      if (calls.length === 0) {
        // A final answer cut off is not a completed one: say so, with the reason.
        return { status: response.finishReason === undefined ? 'completed' : 'incomplete' };
      }
      finishReason = response.finishReason;
    }
  }

  /**
   * Runs one response's calls by the dispatch rules, each through the per-call pipeline
   * (`executeToolCall`), and appends their outputs in call order. True when a result ended the turn.
   */
  async #dispatch(calls: readonly TurnToolCall[], finishReason: string | undefined): Promise<boolean> {
    const { tools, instrumentation, maxParallelCalls } = this.#input;
    const scope = this.#scope;
    const signal = this.#signal;
    let endedByTool = false;
    this.#dispatching = calls;
    const shared = sharedCallIds(calls);
    const records = await dispatchToolCalls<TurnToolCall, ToolCallRecord>(calls, {
      isParallel: (call) => isParallelCall(call, tools, shared),
      run: async (turnCall, index) => {
        const sharedBy = shared.get(turnCall.call.call_id);
        if (sharedBy !== undefined) return refuseDuplicateCallId(turnCall, sharedBy, scope);
        tools.dispatching(turnCall.key);
        const recorded = this.#replay.output(turnCall.itemIndex);
        const record =
          recorded !== undefined
            ? reuseRecordedOutput(turnCall, recorded, scope)
            : await instrumentation.toolCall(turnCall, () =>
                executeToolCall(turnCall, finishReason, scope, this.#replay.inDoubt(turnCall.itemIndex)),
              );
        if (recorded === undefined) {
          const written = this.#recordOutput(turnCall, record);
          // The last call's output is written while the next request's budget is asked (`#request`
          // waits for both before it sends); any other before the loop goes on.
          if (index === calls.length - 1) this.#lastOutputWritten = written;
          else await written;
        }
        if (record.endsTurn) endedByTool = true;
        tools.loaded(record.loadsTools);
        return record;
      },
      shouldStop: () => endedByTool || signal.aborted,
      maxConcurrent: maxParallelCalls,
      skip: (turnCall) => unrunToolCall(turnCall, signal.aborted ? 'cancelled' : 'skipped', scope),
    });
    for (const record of records) this.#items.push(record.output);
    this.#dispatching = [];
    this.#finished.clear();
    return endedByTool;
  }

  /**
   * The starts a new response's entry carries (`JournalResponse.started`): see `startsWithResponse`.
   */
  #startsWithResponse(calls: readonly TurnToolCall[]): JournalCallStart[] {
    return startsWithResponse(calls, this.#input.tools, this.#input.maxParallelCalls).map((call) => ({
      itemIndex: call.itemIndex,
      callId: call.call.call_id,
      key: call.key,
      idempotencyKey: this.#idempotencyKey(call),
    }));
  }

  /**
   * Records a call's output in the journal before the loop goes on (a call cancelled by an abort is
   * not recorded: a resumed turn dispatches it again). A failed write stops the turn after this batch.
   */
  async #recordOutput(turnCall: TurnToolCall, record: ToolCallRecord): Promise<void> {
    const { journal } = this.#input;
    if (journal === undefined || record.end.outcome === 'cancelled' || this.#journalFailure !== undefined)
      return;
    const { result: _result, ...end } = record.end;
    await this.#journaled(
      journal.callFinished({
        itemIndex: turnCall.itemIndex,
        callId: turnCall.call.call_id,
        output: record.output,
        end,
        endsTurn: record.endsTurn,
        loadsTools: record.loadsTools,
      }),
    ).catch(() => {
      // Kept in #journalFailure: the turn ends after this batch.
    });
  }

  /** Sends the next request and records its response; a failed request gives the turn's ending. */
  async #request(): Promise<ModelResponse | TurnEnding> {
    const { model, tools, instrumentation, instructions, signal } = this.#input;
    const items = this.#items;
    const requestTools = tools.requestTools();
    this.#iterations += 1;
    const iteration = this.#iterations;
    const recorded = this.#replay.response(iteration);
    // The last output's write, if still under way, and the budget's answer: both before the request.
    const [refused] = await Promise.all([
      recorded === undefined ? askBudget(this.#input.budget, this.#usage) : undefined,
      this.#lastOutputWritten,
    ]);
    if (this.#journalFailure !== undefined) {
      this.#iterations -= 1;
      return { status: 'failed', error: this.#journalFailure };
    }
    if (recorded !== undefined) return this.#replayResponse(recorded, requestTools.length);
    if (refused !== undefined) {
      // No request was sent: this one does not count as an iteration.
      this.#iterations -= 1;
      return refused;
    }
    this.#emit({ type: 'model-request-start', iteration, toolCount: requestTools.length });
    const request: ModelRequest = {
      items,
      pendingFrom: this.#pendingFrom,
      previousResponseId: this.#last?.id,
      instructions,
      tools: requestTools,
      signal,
      onTextDelta: (delta: string) => this.#emit({ type: 'text-delta', iteration, delta }),
    };
    let response: ModelResponse;
    try {
      response = await instrumentation.modelRequest(iteration, items, () => model.respond(request));
    } catch (caught) {
      return { status: this.#signal.aborted ? 'aborted' : 'failed', error: toError(caught) };
    }
    const text = outputText(response.output);
    const ending = await this.#recordResponse(iteration, response);
    if (ending !== undefined) return ending;
    return this.#accept(iteration, response, text, false);
  }

  /**
   * Tells the budget a new response's usage and records the response in the journal, at the same
   * time: both before its calls run. The turn's ending when either fails (the journal's first).
   */
  async #recordResponse(iteration: number, response: ModelResponse): Promise<TurnEnding | undefined> {
    const journal = this.#input.journal;
    const told = tellBudget(this.#input.budget, response.usage);
    if (journal === undefined) return told;
    // Recorded before its calls run: a resumed turn replays it rather than paying for it again.
    const started = this.#startsWithResponse(callsOf(response.items, this.#items.length));
    const [untold, recorded] = await Promise.all([
      told,
      this.#journaled(
        journal.response({
          iteration,
          id: response.id,
          items: response.items,
          usage: response.usage,
          ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
          ...(started.length === 0 ? {} : { started }),
        }),
      ).then(
        () => true,
        () => false,
      ),
    ]);
    if (!recorded) return { status: 'failed', error: this.#journalFailure };
    for (const start of started) this.#startedWithResponse.add(start.itemIndex);
    return untold;
  }

  /**
   * A step an earlier attempt recorded: its response, from the journal, without a request (its text
   * as one delta, its events marked `replayed`).
   */
  async #replayResponse(recorded: JournalResponse, toolCount: number): Promise<ModelResponse> {
    const { iteration } = recorded;
    this.#emit({ type: 'model-request-start', iteration, toolCount, replayed: true });
    const response: ModelResponse = {
      id: recorded.id,
      items: recorded.items,
      functionCalls: recorded.items.filter((item) => item.type === 'function_call'),
      output: [],
      usage: recorded.usage,
      finishReason: recorded.finishReason,
    };
    await this.#input.instrumentation.modelRequest(iteration, this.#items, async () => response, true);
    const text = outputText(recorded.items);
    if (text !== '') this.#emit({ type: 'text-delta', iteration, delta: text });
    return this.#accept(iteration, response, text, true);
  }

  /** A response received or replayed: counted, announced, and its items appended to the transcript. */
  #accept(iteration: number, response: ModelResponse, text: string, replayed: boolean): ModelResponse {
    this.#last = response;
    this.#lastText = text;
    this.#usage = addUsage(this.#usage, response.usage);
    this.#emit({
      type: 'model-request-end',
      iteration,
      responseId: response.id,
      usage: response.usage,
      functionCallCount: response.functionCalls.length,
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
      ...(replayed ? { replayed: true } : {}),
    });
    for (const item of response.items) this.#items.push(item);
    this.#pendingFrom = this.#items.length;
    return response;
  }

  /** Emits `turn-end`, closes the events and gives the run's result. */
  #end({ status, error: failure }: TurnEnding): AgentRunResult {
    const error = status === 'aborted' && failure === undefined ? abortError(this.#signal) : failure;
    const last = this.#last;
    const usage = this.#usage;
    const iterations = this.#iterations;
    const incompleteReason = status === 'incomplete' ? last?.finishReason : undefined;
    this.#emit({
      type: 'turn-end',
      status,
      iterations,
      usage: { ...usage },
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      ...(error === undefined ? {} : { error }),
    });
    this.#input.events.close();
    return {
      status,
      output: this.#lastText,
      items: this.#items,
      usage,
      iterations,
      ...(last === undefined ? {} : { responseId: last.id }),
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      ...(error === undefined ? {} : { error }),
    };
  }

  /** The transcript as a held call's hook sees it: the items, then the outputs of this response so far. */
  #transcript(): ResponseInputItem[] {
    const transcript = [...this.#items];
    for (const call of this.#dispatching) {
      const output = this.#finished.get(call.itemIndex);
      if (output !== undefined) transcript.push(output);
    }
    return transcript;
  }
}

function isEnding(value: ModelResponse | TurnEnding): value is TurnEnding {
  return 'status' in value;
}

function toError(caught: unknown): Error {
  return caught instanceof Error ? caught : new Error(String(caught));
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The turn was aborted');
}
