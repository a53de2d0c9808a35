import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type Link,
  type Meter,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
// The incubating entry is bundled into core's build (it is a devDependency): only the constants used
// end up in `dist`, so core depends on `@opentelemetry/api` alone at run time, and a later release of
// the conventions renaming an incubating attribute cannot change what this version emits.
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { AgentEvent, AgentUsage, ToolCallEndEvent } from '../events/agent-event';
import type { TurnToolCall } from '../loop/execute-tool-call';
import type { TurnInstrumentation } from '../loop/turn-loop';
import type { ModelResponse } from '../model/responses-model';

/** The instrumentation scope name of core's tracer and meter. */
export const TELEMETRY_SCOPE_NAME = '@switchyard/core';

/**
 * Switchyard's own attribute names, for what the GenAI conventions have no name for. The `gen_ai.*`
 * attributes follow the conventions of `@opentelemetry/semantic-conventions` 1.45.0.
 */
export const TELEMETRY_ATTRIBUTES = {
  /** How the turn ended: an `AgentRunStatus`. */
  turnStatus: 'switchyard.turn.status',
  /** Model requests the turn made. */
  turnIterations: 'switchyard.turn.iterations',
  /** 1-based iteration of a model request in its turn. */
  modelIteration: 'switchyard.model.iteration',
  /** The tool's key: `namespace.name`, or `name`. */
  toolKey: 'switchyard.tool.key',
  /** How a tool call ended: a `ToolCallOutcome`. */
  toolOutcome: 'switchyard.tool.outcome',
  /** The argument ladder's repairs, in order (an `ArgumentRepair[]`). */
  toolRepairs: 'switchyard.tool.repairs',
  /** Why the ladder or the schema refused the arguments (`ToolArgumentsError.reason`). */
  toolRefusal: 'switchyard.tool.refusal',
  /** Milliseconds `beforeToolCall` (an approval) kept the call waiting. */
  toolApprovalWaitMs: 'switchyard.tool.approval.wait_ms',
  /** `beforeToolCall`'s answer: `allow` or `deny`. */
  toolApprovalDecision: 'switchyard.tool.approval.decision',
  /** Milliseconds from the tool's start to its output (the event's `durationMs`). */
  toolDurationMs: 'switchyard.tool.duration_ms',
  /** The tool's result was an error the model reads. */
  toolIsError: 'switchyard.tool.is_error',
  /**
   * A resumed turn's step or call taken from its journal (`true`): nothing was requested or run for it
   * (its tokens and duration counted when it first happened).
   */
  replayed: 'switchyard.replayed',
  /** A call an earlier attempt started without recording its output (`true`): its effect is unknown. */
  toolInDoubt: 'switchyard.tool.in_doubt',
  /** One repair step (metric attribute). */
  repairStep: 'switchyard.repair.step',
  /** The ladder step or check that refused the arguments (metric attribute). */
  refusalStep: 'switchyard.refusal.step',
} as const;

/** Core's metric names besides the conventions' `gen_ai.client.*` ones. */
export const TELEMETRY_METRICS = {
  /** Histogram, seconds, by `switchyard.turn.status` and `gen_ai.agent.name`. */
  turnDuration: 'switchyard.turn.duration',
  /** Histogram, seconds, by `gen_ai.tool.name`, `switchyard.tool.key` and `switchyard.tool.outcome`. */
  toolCallDuration: 'switchyard.tool.call.duration',
  /** Counter of repairs applied to arguments, by `switchyard.repair.step` and `gen_ai.tool.name`. */
  argumentRepairs: 'switchyard.tool.argument.repairs',
  /** Counter of refused arguments, by `switchyard.refusal.step` and `gen_ai.tool.name`. */
  argumentRefusals: 'switchyard.tool.argument.refusals',
} as const;

/** The `telemetry` option of `runAgentLoop`. */
export interface AgentTelemetryOptions {
  /**
   * Record content on spans: instructions, input and output messages, tool arguments and results,
   * and an error's own message as a failed span's status message (default `false`: they can hold
   * secrets, and they are large).
   *
   * Contract: without it, the status message of a failed model request's span and of a failed turn's
   * span is the error's type and HTTP status only (`ModelRequestError (HTTP 400)`), never its message,
   * which a provider may have written from the request. An aborted turn's span keeps its abort
   * reason's message: the caller's own words.
   */
  recordContent?: boolean;
  /** `gen_ai.agent.name` on the turn's spans and metrics. */
  agentName?: string;
  /** `gen_ai.agent.id` on the turn span. */
  agentId?: string;
  /** More attributes on the turn span (never on metrics: keep their cardinality yours to choose). */
  attributes?: Attributes;
  /** The turn span's parent (default: the active context when `runAgentLoop` is called). */
  parentContext?: Context;
  /** Links from the turn span, e.g. to the turn that started this work in another process. */
  links?: Link[];
  /** A tracer provider instead of the global one. */
  tracerProvider?: TracerProvider;
  /** A meter provider instead of the global one. */
  meterProvider?: MeterProvider;
}

/** Each instrument a turn records: its kind, its name, its unit and what it measures. */
const INSTRUMENTS = {
  turnDuration: ['histogram', TELEMETRY_METRICS.turnDuration, 's', 'Duration of agent turns'],
  toolCallDuration: [
    'histogram',
    TELEMETRY_METRICS.toolCallDuration,
    's',
    'Duration of tool calls, from start to output',
  ],
  argumentRepairs: [
    'counter',
    TELEMETRY_METRICS.argumentRepairs,
    '{repair}',
    'Repairs the argument ladder applied to tool call arguments',
  ],
  argumentRefusals: [
    'counter',
    TELEMETRY_METRICS.argumentRefusals,
    '{call}',
    'Tool calls whose arguments were refused',
  ],
  tokenUsage: [
    'histogram',
    METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    '{token}',
    'Number of input and output tokens used',
  ],
  operationDuration: ['histogram', METRIC_GEN_AI_CLIENT_OPERATION_DURATION, 's', 'GenAI operation duration'],
} as const;

type Instruments = {
  [K in keyof typeof INSTRUMENTS]: (typeof INSTRUMENTS)[K][0] extends 'counter' ? Counter : Histogram;
};

// Instruments are made once per meter: the API's no-op meter costs nothing to ask, and an SDK's
// meter would otherwise look up its instrument registry on every turn.
const instrumentsByMeter = new WeakMap<Meter, Instruments>();

function instrumentsFor(meter: Meter): Instruments {
  let instruments = instrumentsByMeter.get(meter);
  if (instruments === undefined) {
    const made: Record<string, Counter | Histogram> = {};
    for (const [key, [kind, name, unit, description]] of Object.entries(INSTRUMENTS)) {
      made[key] =
        kind === 'counter'
          ? meter.createCounter(name, { unit, description })
          : meter.createHistogram(name, { unit, description });
    }
    // Every key of INSTRUMENTS, each of the kind it names.
    instruments = made as Instruments;
    instrumentsByMeter.set(meter, instruments);
  }
  return instruments;
}

function usageAttributes(usage: AgentUsage): Attributes {
  return {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cachedInputTokens,
    [ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS]: usage.reasoningTokens,
  };
}

/**
 * A span's status message for `error`: its type, and its HTTP status when it has one
 * (`ModelRequestError (HTTP 400)`); its whole message only when content is recorded. A provider's
 * error message can quote the request (the prompt, a tool's output), which content capture off
 * promises never to export.
 */
function errorStatusMessage(error: unknown, recordContent: boolean): string {
  if (recordContent && error instanceof Error) return error.message;
  const type = error instanceof Error ? error.name : typeof error;
  const status = (error as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'number' && Number.isInteger(status) ? `${type} (HTTP ${status})` : type;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"[unserialisable]"';
  }
}

/**
 * A turn's spans and metrics: the `TurnInstrumentation` `runAgentLoop` gives its loop, and the only
 * part of core that knows OpenTelemetry. It wraps the turn, each model request and each dispatched
 * tool call, and reads the rest from the events: a call's span ends with its `tool-call-end`, whose
 * `outcome`, `repairs`, `refusal` and `approval` become the span's attributes.
 *
 * Contract: never throws into the loop; without an SDK every span is the API's non-recording span and
 * every attribute object is skipped (`isRecording()`), so a turn pays a few no-op calls.
 */
export class TurnTelemetry implements TurnInstrumentation {
  private readonly tracer: Tracer;
  private readonly instruments: Instruments;
  private readonly turnSpan: Span;
  private readonly turnContext: Context;
  private readonly started = performance.now();
  // Open tool spans by the call's item index, unique within the turn (a `call_id` may not be).
  private readonly toolSpans = new Map<number, Span>();
  private readonly recordContent: boolean;
  private readonly agentName: string | undefined;
  private readonly model: string;

  constructor(options: AgentTelemetryOptions | undefined, model: string, instructions: string | undefined) {
    this.tracer = (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(TELEMETRY_SCOPE_NAME);
    this.instruments = instrumentsFor(
      (options?.meterProvider ?? metrics.getMeterProvider()).getMeter(TELEMETRY_SCOPE_NAME),
    );
    this.recordContent = options?.recordContent === true;
    this.agentName = options?.agentName;
    // A hand-made model without a name (tests, adapters) still gets a valid attribute.
    this.model = typeof model === 'string' && model !== '' ? model : 'unknown';
    const parent = options?.parentContext ?? context.active();
    const name = this.agentName === undefined ? 'invoke_agent' : `invoke_agent ${this.agentName}`;
    this.turnSpan = this.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, ...(options?.links === undefined ? {} : { links: options.links }) },
      parent,
    );
    if (this.turnSpan.isRecording()) {
      this.turnSpan.setAttributes({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
        [ATTR_GEN_AI_REQUEST_MODEL]: this.model,
        ...(this.agentName === undefined ? {} : { [ATTR_GEN_AI_AGENT_NAME]: this.agentName }),
        ...(options?.agentId === undefined ? {} : { [ATTR_GEN_AI_AGENT_ID]: options.agentId }),
        ...options?.attributes,
      });
      if (this.recordContent && instructions !== undefined) {
        this.turnSpan.setAttribute(
          ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
          json([{ type: 'text', content: instructions }]),
        );
      }
    }
    this.turnContext = trace.setSpan(parent, this.turnSpan);
  }

  /** Runs the turn's body with the turn span active, so work the tools start joins the trace. */
  turn<T>(body: () => Promise<T>): Promise<T> {
    return context.with(this.turnContext, body);
  }

  /** Runs one model request inside a `chat` span. */
  async modelRequest(
    iteration: number,
    items: readonly ResponseInputItem[],
    request: () => Promise<ModelResponse>,
    replayed = false,
  ): Promise<ModelResponse> {
    const span = this.tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${this.model}`,
      { kind: SpanKind.CLIENT },
      this.turnContext,
    );
    const recording = span.isRecording();
    if (recording) {
      span.setAttributes({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
        [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
        [ATTR_GEN_AI_REQUEST_MODEL]: this.model,
        [TELEMETRY_ATTRIBUTES.modelIteration]: iteration,
        ...(replayed ? { [TELEMETRY_ATTRIBUTES.replayed]: true } : {}),
      });
      if (this.recordContent) span.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, json(items));
    }
    const started = performance.now();
    const base = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.model,
    };
    let response: ModelResponse;
    try {
      response = await context.with(trace.setSpan(this.turnContext, span), request);
    } catch (error) {
      const errorType = error instanceof Error ? error.name : 'Error';
      if (recording) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: errorStatusMessage(error, this.recordContent),
        });
      }
      span.end();
      this.instruments.operationDuration.record((performance.now() - started) / 1000, {
        ...base,
        [ATTR_ERROR_TYPE]: errorType,
      });
      throw error;
    }
    const finishReason = response.finishReason ?? (response.functionCalls.length > 0 ? 'tool_call' : 'stop');
    if (recording) {
      span.setAttributes({
        [ATTR_GEN_AI_RESPONSE_ID]: response.id,
        [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [finishReason],
        ...usageAttributes(response.usage),
      });
      if (this.recordContent) span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, json(response.output));
    }
    span.end();
    // A replayed step's request and tokens were measured when the earlier attempt made it.
    if (replayed) return response;
    this.instruments.operationDuration.record((performance.now() - started) / 1000, base);
    this.instruments.tokenUsage.record(response.usage.inputTokens, {
      ...base,
      [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_INPUT,
    });
    this.instruments.tokenUsage.record(response.usage.outputTokens, {
      ...base,
      [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
    });
    return response;
  }

  /**
   * Runs one tool call (validation, `beforeToolCall` and `execute`) inside an `execute_tool` span,
   * active while it runs so a tool's own requests (MCP, `web_fetch`) carry the trace out. The span
   * ends with the call's `tool-call-end` event.
   */
  toolCall<T>(call: TurnToolCall, run: () => Promise<T>): Promise<T> {
    const { call: functionCall, itemIndex, key } = call;
    const span = this.startToolSpan(
      functionCall.name,
      functionCall.call_id,
      itemIndex,
      key,
      functionCall.arguments,
    );
    return context.with(trace.setSpan(this.turnContext, span), run);
  }

  /** Sees every event the loop emits: ends tool spans and the turn span. */
  onEvent(event: AgentEvent): void {
    try {
      if (event.type === 'tool-call-end') this.endToolCall(event);
      else if (event.type === 'turn-end') this.endTurn(event);
    } catch {
      // An SDK's exporter or a view that throws must not end the turn it observes.
    }
  }

  private startToolSpan(
    name: string,
    callId: string,
    itemIndex: number,
    key: string,
    rawArguments: string | undefined,
  ): Span {
    const span = this.tracer.startSpan(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`,
      { kind: SpanKind.INTERNAL },
      this.turnContext,
    );
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
        [ATTR_GEN_AI_TOOL_TYPE]: 'function',
        [TELEMETRY_ATTRIBUTES.toolKey]: key,
      });
      if (this.recordContent && rawArguments !== undefined) {
        span.setAttribute(ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, rawArguments);
      }
    }
    this.toolSpans.set(itemIndex, span);
    return span;
  }

  private endToolCall(event: ToolCallEndEvent): void {
    const key = event.namespace === undefined ? event.name : `${event.namespace}.${event.name}`;
    // A call the loop never ran (cancelled, skipped, a shared call id) still gets its span, of no length.
    const span =
      this.toolSpans.get(event.itemIndex) ??
      this.startToolSpan(event.name, event.callId, event.itemIndex, key, undefined);
    this.toolSpans.delete(event.itemIndex);
    if (span.isRecording()) {
      span.setAttributes({
        [TELEMETRY_ATTRIBUTES.toolOutcome]: event.outcome,
        [TELEMETRY_ATTRIBUTES.toolRepairs]: event.repairs,
        [TELEMETRY_ATTRIBUTES.toolDurationMs]: event.durationMs,
        [TELEMETRY_ATTRIBUTES.toolIsError]: event.isError,
      });
      if (event.refusal !== undefined) span.setAttribute(TELEMETRY_ATTRIBUTES.toolRefusal, event.refusal);
      if (event.replayed === true) span.setAttribute(TELEMETRY_ATTRIBUTES.replayed, true);
      if (event.inDoubt === true) span.setAttribute(TELEMETRY_ATTRIBUTES.toolInDoubt, true);
      if (event.approval !== undefined) {
        span.setAttributes({
          [TELEMETRY_ATTRIBUTES.toolApprovalWaitMs]: event.approval.waitMs,
          [TELEMETRY_ATTRIBUTES.toolApprovalDecision]: event.approval.decision,
        });
      }
      // Every outcome but `completed` is a failure, a tool's own error result (`tool-error`) included.
      if (event.outcome !== 'completed') {
        span.setAttribute(ATTR_ERROR_TYPE, event.outcome);
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.outcome });
      }
      if (this.recordContent) span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, json(event.result.content));
    }
    span.end();
    // A replayed call's duration and outcome were measured when it ran.
    if (event.replayed !== true) this.recordToolMetrics(event, key);
  }

  private recordToolMetrics(event: ToolCallEndEvent, key: string): void {
    this.instruments.toolCallDuration.record(event.durationMs / 1000, {
      [ATTR_GEN_AI_TOOL_NAME]: event.name,
      [TELEMETRY_ATTRIBUTES.toolKey]: key,
      [TELEMETRY_ATTRIBUTES.toolOutcome]: event.outcome,
    });
    for (const repair of event.repairs) {
      this.instruments.argumentRepairs.add(1, {
        [TELEMETRY_ATTRIBUTES.repairStep]: repair,
        [ATTR_GEN_AI_TOOL_NAME]: event.name,
      });
    }
    if (event.refusal !== undefined) {
      this.instruments.argumentRefusals.add(1, {
        [TELEMETRY_ATTRIBUTES.refusalStep]: event.refusal,
        [ATTR_GEN_AI_TOOL_NAME]: event.name,
      });
    }
  }

  private endTurn(event: Extract<AgentEvent, { type: 'turn-end' }>): void {
    // Spans of calls that never reached their end event (a defect in a hook) still end with the turn.
    for (const span of this.toolSpans.values()) span.end();
    this.toolSpans.clear();
    const span = this.turnSpan;
    if (span.isRecording()) {
      span.setAttributes({
        [TELEMETRY_ATTRIBUTES.turnStatus]: event.status,
        [TELEMETRY_ATTRIBUTES.turnIterations]: event.iterations,
        ...usageAttributes(event.usage),
      });
      if (event.status === 'failed' || event.status === 'aborted') {
        span.setAttribute(ATTR_ERROR_TYPE, event.status);
        // An abort's reason is the caller's own words (an operator's cancel, a turn limit); a failure's
        // error came from the provider or the network, and may quote the request.
        const message =
          event.error === undefined
            ? event.status
            : event.status === 'aborted'
              ? event.error.message
              : errorStatusMessage(event.error, this.recordContent);
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      }
    }
    span.end();
    this.instruments.turnDuration.record((performance.now() - this.started) / 1000, {
      [TELEMETRY_ATTRIBUTES.turnStatus]: event.status,
      ...(this.agentName === undefined ? {} : { [ATTR_GEN_AI_AGENT_NAME]: this.agentName }),
    });
  }
}
