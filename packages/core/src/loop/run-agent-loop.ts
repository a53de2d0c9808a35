import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { AgentEvent, AgentRunStatus, AgentUsage } from '../events/agent-event';
import type { ResponsesModel } from '../model/responses-model';
import type { ToolSearchMode } from '../schema/collect-tool-schemas';
import { type AgentTelemetryOptions, TurnTelemetry } from '../telemetry/turn-telemetry';
import type { AnyWorkerAgentTool } from '../tool/worker-agent-tool';
import { createTurnToolSet } from '../tool-search/turn-tool-set';
import { type CallLimits, resolveCallLimits } from './call-limits';
import { EventChannel } from './event-channel';
import type { BeforeToolCall } from './execute-tool-call';
import type { TurnBudget } from './turn-budget';
import type { TurnJournal } from './turn-journal';
import { runTurnLoop } from './turn-loop';

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
   * What the turn may spend (see `TurnBudget`): asked before each model request, told each
   * response's usage. A refusal ends the turn `budget-exceeded` with the reason as its `error`.
   * Default: none.
   */
  budget?: TurnBudget;
  /**
   * Where each step is recorded before the loop moves on (each model response before its calls run,
   * each call before `execute` and its output before the loop goes on), and what earlier attempts
   * recorded (`journal.recorded`): a turn continued with the same `input` and `turnId` replays the
   * recorded responses (no request), reuses the recorded outputs (nothing runs), and treats a call
   * recorded as started without an output as in doubt (see `TurnJournal`). Default: none.
   */
  journal?: TurnJournal;
  /**
   * The turn's id, the stable part of each call's `context.idempotencyKey` (`<turnId>:<itemIndex>`):
   * give the same one to every attempt of a turn. Default: a random id per run.
   */
  turnId?: string;
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
  /** Why the turn failed (`ModelRequestError`), was aborted (the signal's reason) or met its budget. */
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

/**
 * Checks the options a turn cannot start without, naming the one at fault, and resolves every
 * call's limits (the checks `runToolCallOnce` shares).
 */
function checkOptions(options: RunAgentLoopOptions): CallLimits {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('runAgentLoop: options must be an object');
  if (typeof options.model?.respond !== 'function') {
    throw new TypeError('runAgentLoop: model must be a model from createResponsesModel');
  }
  if (!Array.isArray(options.tools)) throw new TypeError('runAgentLoop: tools must be an array of tools');
  if (typeof options.input !== 'string' && !Array.isArray(options.input)) {
    throw new TypeError('runAgentLoop: input must be a string or an array of Responses input items');
  }
  const { maxIterations, toolSearch, maxParallelCalls } = options;
  if (maxParallelCalls !== undefined && !(Number.isSafeInteger(maxParallelCalls) && maxParallelCalls > 0)) {
    throw new TypeError(`runAgentLoop: maxParallelCalls must be a positive integer, got ${maxParallelCalls}`);
  }
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) {
    throw new TypeError(`runAgentLoop: maxIterations must be a positive integer, got ${maxIterations}`);
  }
  const limits = resolveCallLimits('runAgentLoop', options);
  if (toolSearch !== undefined && toolSearch !== 'native' && toolSearch !== 'client') {
    throw new TypeError(
      `runAgentLoop: toolSearch must be 'native' or 'client', got ${JSON.stringify(toolSearch)}`,
    );
  }
  checkTelemetryOptions(options.telemetry);
  if (options.turnId !== undefined && (typeof options.turnId !== 'string' || options.turnId === '')) {
    throw new TypeError('runAgentLoop: turnId must be a non-empty string');
  }
  const { journal } = options;
  if (
    journal !== undefined &&
    (typeof journal?.response !== 'function' ||
      typeof journal.callStarted !== 'function' ||
      typeof journal.callFinished !== 'function')
  ) {
    throw new TypeError('runAgentLoop: journal must have response, callStarted and callFinished methods');
  }
  if (options.beforeToolCall !== undefined && typeof options.beforeToolCall !== 'function') {
    throw new TypeError('runAgentLoop: beforeToolCall must be a function');
  }
  const { budget } = options;
  if (
    budget !== undefined &&
    (typeof budget?.beforeRequest !== 'function' ||
      (budget.afterResponse !== undefined && typeof budget.afterResponse !== 'function'))
  ) {
    throw new TypeError(
      'runAgentLoop: budget must have a beforeRequest method (and afterResponse, if any, a function)',
    );
  }
  return limits;
}

function checkTelemetryOptions(telemetry: AgentTelemetryOptions | undefined): void {
  if (telemetry === undefined) return;
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
  const limits = checkOptions(options);
  const { model, instructions } = options;
  // What the loop is given, each built here: the tool set (with Tool Search's deferral state), the
  // instrumentation (spans and metrics), the event channel and the transcript.
  const tools = createTurnToolSet(options.tools, options.toolSearch ?? model.defaultToolSearch);
  const events = new EventChannel();
  const instrumentation = new TurnTelemetry(options.telemetry, model.model, instructions);
  const result = runTurnLoop({
    model,
    tools,
    instrumentation,
    events,
    items:
      typeof options.input === 'string'
        ? [{ type: 'message', role: 'user', content: options.input }]
        : [...options.input],
    instructions,
    signal: options.signal,
    maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxParallelCalls: options.maxParallelCalls ?? DEFAULT_MAX_PARALLEL_CALLS,
    limits,
    beforeToolCall: options.beforeToolCall,
    budget: options.budget,
    journal: options.journal,
    turnId: options.turnId ?? `run_${randomUUID()}`,
  });
  return {
    [Symbol.asyncIterator]: () => events.iterator(),
    result: () => result,
  };
}
