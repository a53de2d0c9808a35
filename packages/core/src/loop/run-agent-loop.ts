import { availableParallelism } from 'node:os';
import type { ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { ToolDefinitionError } from '../errors/tool-definition-error';
import { addUsage, ZERO_USAGE } from '../events/add-usage';
import type { AgentEvent, AgentRunStatus, AgentUsage } from '../events/agent-event';
import type { ModelResponse, ResponsesModel } from '../model/responses-model';
import {
  collectToolSchemas,
  type ResponsesToolSchema,
  type ToolSearchMode,
} from '../schema/collect-tool-schemas';
import { type AgentTelemetryOptions, TurnTelemetry } from '../telemetry/turn-telemetry';
import { agentToolMap, toolKey } from '../tool/agent-tool-map';
import type { AnyWorkerAgentTool } from '../tool/worker-agent-tool';
import { CLIENT_TOOL_SEARCH_NAME, createClientToolSearchTool } from '../tool-search/client-tool-search-tool';
import { DEFAULT_MAX_TOOL_RESULT_BYTES, MIN_TOOL_RESULT_BYTES } from './cap-tool-result';
import { dispatchToolCalls } from './dispatch';
import {
  type BeforeToolCall,
  executeToolCall,
  refuseDuplicateCallId,
  type ToolCallRecord,
  type ToolCallScope,
  type TurnToolCall,
  unrunToolCall,
} from './execute-tool-call';

/** Options of `runAgentLoop`. */
export interface RunAgentLoopOptions {
  /** The model, from `createResponsesModel`. */
  model: ResponsesModel;
  /** The turn's tool set, in order: a tool in it is available, a tool not in it is not. */
  tools: readonly AnyWorkerAgentTool[];
  /**
   * The user's message, or the transcript so far as Responses input items. Function calls in it
   * without a `function_call_output` (a transcript stored while a call was held by
   * `beforeToolCall`) are dispatched first, in order and by the usual rules, `beforeToolCall`
   * included, before the first model request.
   */
  input: string | readonly ResponseInputItem[];
  /** System instructions sent with every request. */
  instructions?: string;
  /** Aborts the turn: the model request and every running tool. */
  signal?: AbortSignal;
  /** Most model requests in the turn (default 50). */
  maxIterations?: number;
  /** Per-call timeout in milliseconds (default none); a timed-out call gets an error output. */
  toolTimeoutMs?: number;
  /**
   * Most calls of one response that run at once (default `DEFAULT_MAX_PARALLEL_CALLS`: twice the
   * cores, from 4 to 16). A response of 128 parallel calls runs them that many at a time, in order;
   * outputs stay in call order. Each call's memory and the event loop's share are what it bounds.
   */
  maxParallelCalls?: number;
  /**
   * How long, in milliseconds, a call whose signal fired (its timeout, or the turn's abort) is
   * waited for before the loop stops waiting (default 5 000; 0 waits no longer than a timer tick).
   * Until then the next sequential call does not start and an aborted turn does not end; past it
   * the call is reported abandoned (its output says it may still be running, and its
   * `tool-call-end` carries `abandoned: true`).
   */
  abandonGraceMs?: number;
  /**
   * How deferred tools are offered: `'native'` sends OpenAI's `tool_search` with `defer_loading`;
   * `'client'` adds a `tool_search` function tool (BM25) that loads the chosen tools into the next
   * request. Default: the model's `defaultToolSearch` (native on api.openai.com, else client).
   */
  toolSearch?: ToolSearchMode;
  /** Policy hook after validation, before `execute`: allow, or deny with a reason the model reads. */
  beforeToolCall?: BeforeToolCall;
  /**
   * Most UTF-8 bytes of text one tool result may put before the model (default 65 536, at least
   * 1 024). Longer text keeps its head and tail with a note between saying how much was cut; the
   * `tool-call-end` event and the result's `details` carry `resultCut`. Applies to every tool,
   * MCP tools and the loop's own error outputs included; tools see it as `ctx.maxResultBytes`.
   */
  maxToolResultBytes?: number;
  /**
   * OpenTelemetry spans and metrics (through `@opentelemetry/api`: no-ops unless the application
   * installs an SDK). The turn's span is a child of the active context unless `parentContext` says
   * otherwise; content is recorded only with `recordContent: true`.
   */
  telemetry?: AgentTelemetryOptions;
}

/** What `run.result()` resolves with. */
export interface AgentRunResult {
  /** How the turn ended. */
  status: AgentRunStatus;
  /** The output text of the last model response (empty when it had none). */
  output: string;
  /** The whole transcript: input, every response's replayable output items and every call's output. */
  items: ResponseInputItem[];
  /** Usage summed over the turn. */
  usage: AgentUsage;
  /** Model requests made. */
  iterations: number;
  /** The last response's id, when there was one. */
  responseId?: string;
  /**
   * With status `incomplete`: why the last response was cut off (`max_output_tokens`,
   * `content_filter`), its `incomplete_details.reason`.
   */
  incompleteReason?: string;
  /** Why the turn failed (`ModelRequestError`) or was aborted (the signal's reason). */
  error?: Error;
}

/** A running turn: `for await` over its events, and/or `await run.result()`. */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  /** Resolves when the turn ends. Never rejects: failures are a `'failed'` status with `error`. */
  result(): Promise<AgentRunResult>;
}

const DEFAULT_MAX_ITERATIONS = 50;

/**
 * How many calls of one response run at once by default: twice the cores this process may use, at
 * least 4 and at most 16. Tools wait on I/O more than they compute, so a few per core keep the
 * machine busy; more only add memory (each call's buffers) and event-loop work at the same moment.
 */
export const DEFAULT_MAX_PARALLEL_CALLS = Math.min(16, Math.max(4, 2 * availableParallelism()));
/** A few seconds: long enough for a tool to finish cleaning up, short enough to keep a turn moving. */
/** How long a call that ignores its signal is waited for, by default, before it is reported abandoned. */
export const DEFAULT_ABANDON_GRACE_MS = 5_000;

/** A single-consumer event queue: the loop pushes, the iterator pulls, nothing is dropped. */
class EventChannel {
  private buffer: AgentEvent[] = [];
  private head = 0;
  private closed = false;
  private waiter: ((result: IteratorResult<AgentEvent>) => void) | undefined;
  private iterated = false;

  push(event: AgentEvent): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
    } else {
      this.buffer.push(event);
    }
  }

  close(): void {
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  iterator(): AsyncIterator<AgentEvent> {
    if (this.iterated) throw new Error('runAgentLoop: a run can be iterated only once');
    this.iterated = true;
    return {
      next: () => {
        if (this.head < this.buffer.length) {
          const value = this.buffer[this.head] as AgentEvent;
          this.head += 1;
          if (this.head === this.buffer.length) {
            this.buffer = [];
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
      return: () => {
        // Leaving the loop early stops delivery, not the turn: abort through `signal` for that.
        this.closed = true;
        this.buffer = [];
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

function outputText(output: readonly ResponseOutputItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message') continue;
    for (const part of item.content) if (part.type === 'output_text') text += part.text;
  }
  return text;
}

/**
 * The function calls of `items[from..]` that have no output yet, in transcript order, each with its
 * item's index: none for an ordinary input; the held calls (and any call of their response not run
 * yet) of a turn continued from a stored transcript; every call of a response just appended.
 *
 * An output answers the earliest call before it with its `call_id` that has none yet: an endpoint
 * may reuse a call id in a later response, and that later call is not answered by the earlier
 * call's output.
 */
function pendingFunctionCalls(items: readonly ResponseInputItem[], from = 0): TurnToolCall[] {
  const unanswered = new Map<string, TurnToolCall[]>();
  const pending: TurnToolCall[] = [];
  for (let index = from; index < items.length; index += 1) {
    const item = items[index] as ResponseInputItem;
    if (item.type === 'function_call') {
      const call: TurnToolCall = { call: item, itemIndex: index };
      pending.push(call);
      const waiting = unanswered.get(item.call_id);
      if (waiting === undefined) unanswered.set(item.call_id, [call]);
      else waiting.push(call);
    } else if (item.type === 'function_call_output') {
      const answered = unanswered.get(item.call_id)?.shift();
      if (answered !== undefined) pending.splice(pending.indexOf(answered), 1);
    }
  }
  return pending;
}

/** How many calls of `calls` share each `call_id`, for the ids more than one call has. */
function sharedCallIds(calls: readonly TurnToolCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { call } of calls) counts.set(call.call_id, (counts.get(call.call_id) ?? 0) + 1);
  for (const [id, count] of counts) if (count === 1) counts.delete(id);
  return counts;
}

function checkOptions(options: RunAgentLoopOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('runAgentLoop: options must be an object');
  if (typeof options.model?.respond !== 'function') {
    throw new TypeError('runAgentLoop: model must be a model from createResponsesModel');
  }
  if (!Array.isArray(options.tools)) throw new TypeError('runAgentLoop: tools must be an array of tools');
  if (typeof options.input !== 'string' && !Array.isArray(options.input)) {
    throw new TypeError('runAgentLoop: input must be a string or an array of Responses input items');
  }
  const { maxIterations, toolTimeoutMs, abandonGraceMs, toolSearch, maxToolResultBytes, maxParallelCalls } =
    options;
  if (maxParallelCalls !== undefined && !(Number.isSafeInteger(maxParallelCalls) && maxParallelCalls > 0)) {
    throw new TypeError(`runAgentLoop: maxParallelCalls must be a positive integer, got ${maxParallelCalls}`);
  }
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) {
    throw new TypeError(`runAgentLoop: maxIterations must be a positive integer, got ${maxIterations}`);
  }
  if (toolTimeoutMs !== undefined && !(Number.isFinite(toolTimeoutMs) && toolTimeoutMs > 0)) {
    throw new TypeError(`runAgentLoop: toolTimeoutMs must be a positive number, got ${toolTimeoutMs}`);
  }
  if (abandonGraceMs !== undefined && !(Number.isFinite(abandonGraceMs) && abandonGraceMs >= 0)) {
    throw new TypeError(`runAgentLoop: abandonGraceMs must be a number >= 0, got ${abandonGraceMs}`);
  }
  if (
    maxToolResultBytes !== undefined &&
    !(Number.isSafeInteger(maxToolResultBytes) && maxToolResultBytes >= MIN_TOOL_RESULT_BYTES)
  ) {
    throw new TypeError(
      `runAgentLoop: maxToolResultBytes must be an integer >= ${MIN_TOOL_RESULT_BYTES}, got ${maxToolResultBytes}`,
    );
  }
  if (toolSearch !== undefined && toolSearch !== 'native' && toolSearch !== 'client') {
    throw new TypeError(
      `runAgentLoop: toolSearch must be 'native' or 'client', got ${JSON.stringify(toolSearch)}`,
    );
  }
  const { telemetry } = options;
  if (telemetry !== undefined) {
    if (typeof telemetry !== 'object' || telemetry === null) {
      throw new TypeError('runAgentLoop: telemetry must be an object');
    }
    if (telemetry.recordContent !== undefined && typeof telemetry.recordContent !== 'boolean') {
      throw new TypeError(
        `runAgentLoop: telemetry.recordContent must be a boolean, got ${JSON.stringify(telemetry.recordContent)}`,
      );
    }
    if (telemetry.agentName !== undefined && typeof telemetry.agentName !== 'string') {
      throw new TypeError('runAgentLoop: telemetry.agentName must be a string');
    }
  }
  if (options.beforeToolCall !== undefined && typeof options.beforeToolCall !== 'function') {
    throw new TypeError('runAgentLoop: beforeToolCall must be a function');
  }
}

/**
 * Runs one turn: model request, dispatch of every function call, outputs appended, and again,
 * until a response has no function call (or a result ends the turn, the turn is aborted, the
 * iteration limit is reached or a request fails).
 *
 * Calls of one response run in the model's order; consecutive `parallel` calls run concurrently, a
 * `sequential` call runs alone; outputs are recorded in call order. A call whose signal fired
 * (timeout or abort) still holds that barrier until `execute` settles, for at most
 * `abandonGraceMs`; past it the call is reported abandoned and the turn goes on (or, aborted, ends).
 *
 * With client-side Tool Search the loop adds one ordinary tool, `tool_search`, built by core; any
 * tool may load deferred tools through its result's `loadsTools`, and a deferred tool called by its
 * name is loaded too. Loaded tools are sent from the next request on.
 *
 * Contract: throws `TypeError` (bad option, naming it) or `ToolDefinitionError` (two tools with one
 * key, or a tool named `tool_search` with client-side Tool Search) when called. After that it
 * never throws: model mistakes and tool failures become `isError` outputs the model reads, and a
 * transport failure or an abort ends the turn with status `'failed'` or `'aborted'`. An aborted
 * turn gives every call without an output a "cancelled" one, so `items` stays a valid transcript.
 * Contract: a sequential call never starts, and an aborted turn never ends, while an earlier call's
 * `execute` is still running, unless that call was reported abandoned (`abandoned: true` on its
 * `tool-call-end`, and its output says it may still be running) after `abandonGraceMs`.
 *
 * @example
 * const model = createResponsesModel({ client: new OpenAI(), model: 'gpt-5.4-mini' });
 * const run = runAgentLoop({
 *   model,
 *   tools: [readNote, ...createWebTools(ctx)],
 *   instructions: 'You are a careful assistant.',
 *   input: 'Summarise notes/todo.md',
 *   signal: AbortSignal.timeout(120_000),
 * });
 * for await (const event of run) {
 *   if (event.type === 'text-delta') process.stdout.write(event.delta);
 *   if (event.type === 'tool-call-start') console.log(`… ${event.activity}`);
 * }
 * const { status, output, items, usage } = await run.result();
 */
export function runAgentLoop(options: RunAgentLoopOptions): AgentRun {
  checkOptions(options);
  const { model, tools, instructions } = options;
  const toolSearch = options.toolSearch ?? model.defaultToolSearch;
  // Tools always get a signal; one that never aborts when the turn has none.
  const signal = options.signal ?? new AbortController().signal;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const deferred = tools.filter((tool) => tool.deferLoading === true);
  const useClientSearch = toolSearch === 'client' && deferred.length > 0;
  if (useClientSearch && tools.some((tool) => toolKey(tool) === CLIENT_TOOL_SEARCH_NAME)) {
    throw new ToolDefinitionError({
      toolName: CLIENT_TOOL_SEARCH_NAME,
      field: 'name',
      message: `a tool is named '${CLIENT_TOOL_SEARCH_NAME}', which client-side Tool Search needs for itself`,
    });
  }
  // Keys of the deferred tools loaded so far; only client-side search leaves any tool out to load.
  const loadedTools = new Set<string>();
  const deferredKeys = new Set(useClientSearch ? deferred.map(toolKey) : []);
  // The turn's tool set as the model sees it: the caller's tools, then core's own `tool_search`.
  const turnTools = useClientSearch ? [...tools, createClientToolSearchTool(deferred, loadedTools)] : tools;
  const toolMap = agentToolMap(turnTools);
  const channel = new EventChannel();
  const telemetry = new TurnTelemetry(options.telemetry, model.model, instructions);
  const emit = (event: AgentEvent) => {
    telemetry.onEvent(event);
    channel.push(event);
  };

  let requestTools: ResponsesToolSchema[] = [];
  let toolsStale = true;
  const loadTools = (keys: readonly string[]) => {
    for (const key of keys) {
      if (deferredKeys.has(key) && !loadedTools.has(key)) {
        loadedTools.add(key);
        toolsStale = true;
      }
    }
  };
  const items: ResponseInputItem[] =
    typeof options.input === 'string'
      ? [{ type: 'message', role: 'user', content: options.input }]
      : [...options.input];
  // The outputs of the calls being dispatched, by item index, as they finish: `transcript()` adds
  // them (in call order) to `items`, which gets them only once the whole response is dispatched.
  let dispatching: readonly TurnToolCall[] = [];
  const finished = new Map<number, ResponseInputItem.FunctionCallOutput>();
  const scope: ToolCallScope = {
    tools: toolMap,
    signal,
    toolTimeoutMs: options.toolTimeoutMs,
    abandonGraceMs: options.abandonGraceMs ?? DEFAULT_ABANDON_GRACE_MS,
    beforeToolCall: telemetry.wrapBeforeToolCall(options.beforeToolCall),
    onArgumentsRefused: (call, reason) => telemetry.argumentsRefused(call, reason),
    maxToolResultBytes: options.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES,
    emit,
    recordOutput: (call, output) => {
      finished.set(call.itemIndex, output);
    },
    transcript: () => {
      const transcript = [...items];
      for (const call of dispatching) {
        const output = finished.get(call.itemIndex);
        if (output !== undefined) transcript.push(output);
      }
      return transcript;
    },
  };

  async function loop(): Promise<AgentRunResult> {
    let usage: AgentUsage = ZERO_USAGE;
    let iterations = 0;
    let pendingFrom = 0;
    let last: ModelResponse | undefined;
    let status: AgentRunStatus;
    let error: Error | undefined;
    emit({ type: 'turn-start', toolCount: tools.length, toolSearch });
    // A transcript that ends with calls without outputs (a turn continued after its process stopped
    // while a call waited for approval) has them dispatched before the first request.
    let calls = pendingFunctionCalls(items);
    let finishReason: string | undefined;
    try {
      for (;;) {
        if (calls.length > 0) {
          let endedByTool = false;
          dispatching = calls;
          const shared = sharedCallIds(calls);
          const records = await dispatchToolCalls<TurnToolCall, ToolCallRecord>(calls, {
            isParallel: ({ call }) => {
              const tool = toolMap.get(toolKey(call));
              // Unknown tools and refused calls cost nothing, so they never need to wait for a batch.
              return tool === undefined || shared.has(call.call_id) || tool.executionMode === 'parallel';
            },
            run: async (turnCall) => {
              const { call } = turnCall;
              const sharedBy = shared.get(call.call_id);
              if (sharedBy !== undefined) return refuseDuplicateCallId(turnCall, sharedBy, scope);
              // A deferred tool called by its name, without a search first, is sent from now on.
              if (toolMap.get(toolKey(call))?.deferLoading === true) loadTools([toolKey(call)]);
              const record = await telemetry.toolCall(call, () =>
                executeToolCall(turnCall, finishReason, scope),
              );
              if (record.endsTurn) endedByTool = true;
              loadTools(record.loadsTools);
              return record;
            },
            shouldStop: () => endedByTool || signal.aborted,
            maxConcurrent: options.maxParallelCalls ?? DEFAULT_MAX_PARALLEL_CALLS,
            skip: (call) => unrunToolCall(call, signal.aborted ? 'cancelled' : 'skipped', scope),
          });
          for (const record of records) items.push(record.output);
          dispatching = [];
          finished.clear();
          if (signal.aborted) {
            status = 'aborted';
            break;
          }
          if (endedByTool) {
            status = 'ended-by-tool';
            break;
          }
        }
        if (signal.aborted) {
          status = 'aborted';
          break;
        }
        if (iterations >= maxIterations) {
          status = 'max-iterations';
          break;
        }
        if (toolsStale) {
          // Re-collected only when the loaded set changes: the schemas themselves are cached in core.
          requestTools = collectToolSchemas(turnTools, { toolSearch, loadedTools }).tools;
          toolsStale = false;
        }
        iterations += 1;
        const iteration = iterations;
        emit({ type: 'model-request-start', iteration, toolCount: requestTools.length });
        let response: ModelResponse;
        try {
          const request = {
            items,
            pendingFrom,
            previousResponseId: last?.id,
            instructions,
            tools: requestTools,
            signal: options.signal,
            onTextDelta: (delta: string) => emit({ type: 'text-delta', iteration, delta }),
          };
          response = await telemetry.chat(iteration, items, () => model.respond(request));
        } catch (caught) {
          status = signal.aborted ? 'aborted' : 'failed';
          error = caught instanceof Error ? caught : new Error(String(caught));
          break;
        }
        last = response;
        usage = addUsage(usage, response.usage);
        emit({
          type: 'model-request-end',
          iteration,
          responseId: response.id,
          usage: response.usage,
          functionCallCount: response.functionCalls.length,
          ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
        });
        const appendedFrom = items.length;
        for (const item of response.items) items.push(item);
        pendingFrom = items.length;
        // The calls are dispatched as recorded in the transcript, which is what a continued turn
        // dispatches too: each keeps the index of its item there.
        calls = pendingFunctionCalls(items, appendedFrom);
        if (calls.length === 0) {
          // A final answer cut off is not a completed one: say so, with the reason.
          status = response.finishReason === undefined ? 'completed' : 'incomplete';
          break;
        }
        finishReason = response.finishReason;
      }
    } catch (caught) {
      // Only a defect in the loop itself lands here; the turn still ends with an event.
      status = 'failed';
      error = caught instanceof Error ? caught : new Error(String(caught));
    }
    if (status === 'aborted' && error === undefined) {
      error = signal.reason instanceof Error ? signal.reason : new Error('The turn was aborted');
    }
    const incompleteReason = status === 'incomplete' ? last?.finishReason : undefined;
    emit({
      type: 'turn-end',
      status,
      iterations,
      usage: { ...usage },
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      ...(error === undefined ? {} : { error }),
    });
    channel.close();
    return {
      status,
      output: last === undefined ? '' : outputText(last.output),
      items,
      usage,
      iterations,
      ...(last === undefined ? {} : { responseId: last.id }),
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      ...(error === undefined ? {} : { error }),
    };
  }

  const result = telemetry.runTurn(loop);
  return {
    [Symbol.asyncIterator]: () => channel.iterator(),
    result: () => result,
  };
}
