// Core's OpenTelemetry spans and metrics, with the SDK's in-memory exporter, through the real openai
// SDK against the fake server.
import { context, ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, type ToolExecutionMode } from '../index';
import { runTurn } from './__fixtures__/loop-test-helpers';
import { abortingTool, bareTool, untilAborted, waitingTool } from './__fixtures__/test-tools';

class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let metricReader: TestMetricReader;
let meterProvider: MeterProvider;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  // The loop makes each tool call's span active while it runs: that needs a context manager, which
  // an application's SDK (the Node SDK in the worker) installs.
  context.setGlobalContextManager(contextManager.enable());
});

afterAll(() => {
  context.disable();
});

afterEach(() => {
  exporter.reset();
});

function telemetry(extra: Record<string, unknown> = {}) {
  metricReader = new TestMetricReader();
  meterProvider = new MeterProvider({ readers: [metricReader] });
  return { tracerProvider, meterProvider, agentName: 'scribe', ...extra };
}

function spansNamed(prefix: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name.startsWith(prefix));
}

function only(prefix: string): ReadableSpan {
  const spans = spansNamed(prefix);
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

function toolSpan(callId: string): ReadableSpan {
  const span = exporter
    .getFinishedSpans()
    .find((candidate) => candidate.attributes['gen_ai.tool.call.id'] === callId);
  if (span === undefined) throw new Error(`no execute_tool span for ${callId}`);
  return span;
}

function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

function millis(time: [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}

async function metricPoints(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await metricReader.collect();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name === name) return metric.dataPoints as DataPoint<unknown>[];
    }
  }
  return [];
}

/** The tool-call duration points as sorted `<tool name>:<outcome>` strings. */
async function toolOutcomesInMetrics(): Promise<string[]> {
  const durations = await metricPoints('switchyard.tool.call.duration');
  return durations
    .map((point) => `${point.attributes['gen_ai.tool.name']}:${point.attributes['switchyard.tool.outcome']}`)
    .sort();
}

/** Records, per call, the span a tool's own outgoing requests would carry as their parent. */
function spanRecordingTool(
  name: string,
  executionMode: ToolExecutionMode,
  seen: Map<string, string | undefined>,
) {
  return waitingTool(name, executionMode, {
    start: (_id, context) => seen.set(context.toolCallId, trace.getActiveSpan()?.spanContext().spanId),
  });
}

describe('span tree of a turn', () => {
  it('has one invoke_agent span, a chat span per request and an execute_tool span per call', async () => {
    const seen = new Map<string, string | undefined>();
    const tools = [
      spanRecordingTool('fetch', 'parallel', seen),
      spanRecordingTool('write', 'sequential', seen),
    ];
    const { result, events } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'fetch', arguments: { id: 'a', waitMs: 30 }, callId: 'call_a' },
            { name: 'fetch', arguments: { id: 'b', waitMs: 30 }, callId: 'call_b' },
            { name: 'write', arguments: { id: 's', waitMs: 5 }, callId: 'call_s' },
          ],
          usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 },
          id: 'resp_one',
        },
        { text: 'All done.', usage: { inputTokens: 200, outputTokens: 7 }, id: 'resp_two' },
      ],
      { tools, telemetry: telemetry() },
    );
    expect(result.status).toBe('completed');

    const turn = only('invoke_agent');
    expect(turn.name).toBe('invoke_agent scribe');
    expect(parentId(turn)).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.agent.name': 'scribe',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.usage.input_tokens': 320,
      'gen_ai.usage.output_tokens': 37,
      'switchyard.turn.status': 'completed',
      'switchyard.turn.iterations': 2,
    });
    const turnId = turn.spanContext().spanId;

    const chats = spansNamed('chat ');
    expect(chats.map((span) => span.name)).toEqual(['chat fake-model', 'chat fake-model']);
    for (const chat of chats) {
      expect(parentId(chat)).toBe(turnId);
      expect(chat.spanContext().traceId).toBe(turn.spanContext().traceId);
    }
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.response.id': 'resp_one',
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 100,
    });
    expect(chats[1]?.attributes).toMatchObject({
      'gen_ai.response.id': 'resp_two',
      'gen_ai.response.finish_reasons': ['stop'],
    });

    const [a, b, s] = ['call_a', 'call_b', 'call_s'].map(toolSpan) as [
      ReadableSpan,
      ReadableSpan,
      ReadableSpan,
    ];
    for (const span of [a, b, s]) {
      expect(parentId(span)).toBe(turnId);
      expect(span.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(span.attributes['switchyard.tool.outcome']).toBe('completed');
      expect(span.status.code).toBe(0);
      // The tool ran with its own span active.
      expect(seen.get(span.attributes['gen_ai.tool.call.id'] as string)).toBe(span.spanContext().spanId);
    }
    expect(a.name).toBe('execute_tool fetch');
    expect(s.attributes).toMatchObject({
      'gen_ai.tool.name': 'write',
      'gen_ai.tool.type': 'function',
      'switchyard.tool.key': 'write',
      'switchyard.tool.repairs': [],
    });
    // Parallel calls overlap; the sequential one starts after both ended. Span times are anchored to
    // the wall clock per span, so "after" allows the SDK's sub-millisecond anchoring skew.
    const skew = 1;
    expect(millis(b.startTime)).toBeLessThan(millis(a.endTime) - 10);
    expect(millis(s.startTime) + skew).toBeGreaterThanOrEqual(Math.max(millis(a.endTime), millis(b.endTime)));
    // Tool calls sit between the two model requests.
    expect(millis(a.startTime) + skew).toBeGreaterThanOrEqual(millis(chats[0]?.endTime ?? [0, 0]));
    expect(millis(chats[1]?.startTime ?? [0, 0]) + skew).toBeGreaterThanOrEqual(millis(s.endTime));
    const ends = events.filter((event) => event.type === 'tool-call-end');
    for (const end of ends) {
      expect(toolSpan(end.callId).attributes['switchyard.tool.duration_ms']).toBe(end.durationMs);
    }

    // Content is off by default.
    for (const span of exporter.getFinishedSpans()) {
      expect(Object.keys(span.attributes)).not.toContain('gen_ai.input.messages');
      expect(Object.keys(span.attributes)).not.toContain('gen_ai.output.messages');
      expect(Object.keys(span.attributes)).not.toContain('gen_ai.tool.call.arguments');
      expect(Object.keys(span.attributes)).not.toContain('gen_ai.tool.call.result');
    }
  });

  it('makes the turn a child of the active context, or of parentContext when given', async () => {
    const parent: Span = tracerProvider.getTracer('test').startSpan('http request');
    await context.with(trace.setSpan(ROOT_CONTEXT, parent), () =>
      runTurn([{ text: 'hi' }], { tools: [], telemetry: telemetry() }),
    );
    expect(parentId(only('invoke_agent'))).toBe(parent.spanContext().spanId);
    exporter.reset();
    await runTurn([{ text: 'hi' }], {
      tools: [],
      telemetry: telemetry({ parentContext: trace.setSpan(ROOT_CONTEXT, parent) }),
    });
    const turn = only('invoke_agent');
    expect(parentId(turn)).toBe(parent.spanContext().spanId);
    expect(turn.spanContext().traceId).toBe(parent.spanContext().traceId);
    parent.end();
  });

  it('records content only with recordContent', async () => {
    const seen = new Map<string, string | undefined>();
    await runTurn(
      [
        { functionCalls: [{ name: 'fetch', arguments: { id: 'secret-id', waitMs: 1 }, callId: 'c1' }] },
        { text: 'The answer.' },
      ],
      {
        tools: [spanRecordingTool('fetch', 'parallel', seen)],
        instructions: 'Be brief.',
        input: 'What is in the vault?',
        telemetry: telemetry({ recordContent: true }),
      },
    );
    expect(String(only('invoke_agent').attributes['gen_ai.system_instructions'])).toContain('Be brief.');
    const chats = spansNamed('chat ');
    expect(String(chats[0]?.attributes['gen_ai.input.messages'])).toContain('What is in the vault?');
    expect(String(chats[1]?.attributes['gen_ai.output.messages'])).toContain('The answer.');
    expect(toolSpan('c1').attributes['gen_ai.tool.call.arguments']).toBe('{"id":"secret-id","waitMs":1}');
    expect(String(toolSpan('c1').attributes['gen_ai.tool.call.result'])).toContain('done secret-id');
  });
});

describe('tool call outcomes on spans and metrics', () => {
  const echo = defineWorkerTool({
    name: 'echo',
    description: 'Echo a word.',
    schema: z.object({ word: z.string() }),
    executionMode: 'parallel',
    describeActivity: ({ word }) => `Echoing ${word}`,
    execute: async ({ word }) => ({ content: word }),
  });

  it('records a repaired argument and a refused one, with their steps in metrics', async () => {
    await runTurn(
      [
        {
          functionCalls: [
            { name: 'echo', arguments: '```json\n{"word": "fenced"}\n```', callId: 'repaired' },
            { name: 'echo', arguments: { word: 5 }, callId: 'invalid' },
            { name: 'echo', arguments: '{"word": "a', callId: 'unreadable' },
          ],
        },
        { text: 'ok' },
      ],
      { tools: [echo], telemetry: telemetry() },
    );
    const repaired = toolSpan('repaired');
    expect(repaired.attributes['switchyard.tool.outcome']).toBe('completed');
    const repairs = repaired.attributes['switchyard.tool.repairs'] as string[];
    expect(repairs.length).toBeGreaterThan(0);
    expect(repaired.status.code).toBe(0);

    const invalid = toolSpan('invalid');
    expect(invalid.attributes).toMatchObject({
      'switchyard.tool.outcome': 'invalid-arguments',
      'switchyard.tool.refusal': 'invalid-arguments',
      'error.type': 'invalid-arguments',
    });
    expect(invalid.status.code).toBe(2);
    const unreadable = toolSpan('unreadable');
    expect(unreadable.attributes['switchyard.tool.outcome']).toBe('invalid-arguments');
    const unreadableReason = unreadable.attributes['switchyard.tool.refusal'];
    expect(typeof unreadableReason).toBe('string');
    expect(unreadableReason).not.toBe('invalid-arguments');

    const repairPoints = await metricPoints('switchyard.tool.argument.repairs');
    expect(repairPoints.map((point) => point.attributes['switchyard.repair.step']).sort()).toEqual(
      [...repairs].sort(),
    );
    const refusals = await metricPoints('switchyard.tool.argument.refusals');
    const byStep = new Map(
      refusals.map((point) => [point.attributes['switchyard.refusal.step'], point.value as number]),
    );
    expect(byStep.get('invalid-arguments')).toBe(1);
    expect(byStep.get(unreadableReason as string)).toBe(1);
  });

  it('records a timeout and the approval wait and decision', async () => {
    const hang = bareTool('hang', untilAborted);
    await runTurn(
      [
        {
          functionCalls: [
            { name: 'hang', arguments: {}, callId: 'slow' },
            { name: 'echo', arguments: { word: 'no' }, callId: 'denied' },
          ],
        },
        { text: 'ok' },
      ],
      {
        tools: [hang, echo],
        toolTimeoutMs: 20,
        beforeToolCall: async (call) => {
          await new Promise((resolve) => setTimeout(resolve, 15));
          return call.name === 'echo' ? { allow: false, reason: 'not today' } : { allow: true };
        },
        telemetry: telemetry(),
      },
    );
    const slow = toolSpan('slow');
    expect(slow.attributes).toMatchObject({
      'switchyard.tool.outcome': 'timeout',
      'error.type': 'timeout',
      'switchyard.tool.approval.decision': 'allow',
    });
    expect(slow.attributes['switchyard.tool.approval.wait_ms']).toBeGreaterThanOrEqual(10);
    expect(slow.status.code).toBe(2);
    const denied = toolSpan('denied');
    expect(denied.attributes).toMatchObject({
      'switchyard.tool.outcome': 'denied',
      'switchyard.tool.approval.decision': 'deny',
    });

    expect(await toolOutcomesInMetrics()).toEqual(['echo:denied', 'hang:timeout']);
  });

  it("marks a tool's own error result as a failed span, apart from completed calls in metrics", async () => {
    const refuse = bareTool('refuse', async () => ({ content: 'no such record', isError: true }));
    await runTurn(
      [
        {
          functionCalls: [
            { name: 'refuse', arguments: {}, callId: 'refused' },
            { name: 'echo', arguments: { word: 'yes' }, callId: 'echoed' },
          ],
        },
        { text: 'ok' },
      ],
      { tools: [refuse, echo], telemetry: telemetry() },
    );
    const refused = toolSpan('refused');
    expect(refused.attributes).toMatchObject({
      'switchyard.tool.outcome': 'tool-error',
      'switchyard.tool.is_error': true,
      'error.type': 'tool-error',
    });
    expect(refused.status).toMatchObject({ code: 2, message: 'tool-error' });
    const echoed = toolSpan('echoed');
    expect(echoed.attributes['switchyard.tool.outcome']).toBe('completed');
    expect(echoed.attributes['error.type']).toBeUndefined();
    expect(echoed.status.code).toBe(0);
    expect(await toolOutcomesInMetrics()).toEqual(['echo:completed', 'refuse:tool-error']);
  });

  it('ends every span of an aborted turn and marks the turn and the running call', async () => {
    const controller = new AbortController();
    const started = abortingTool(controller);
    const { result } = await runTurn(
      [
        {
          functionCalls: [
            { name: 'block', arguments: {}, callId: 'running' },
            { name: 'echo', arguments: { word: 'later' }, callId: 'pending' },
          ],
        },
        { text: 'never asked' },
      ],
      { tools: [started, echo], signal: controller.signal, telemetry: telemetry() },
    );
    expect(result.status).toBe('aborted');
    const turn = only('invoke_agent');
    expect(turn.attributes).toMatchObject({ 'switchyard.turn.status': 'aborted', 'error.type': 'aborted' });
    expect(turn.status).toMatchObject({ code: 2, message: 'operator cancelled' });
    expect(toolSpan('running').attributes['switchyard.tool.outcome']).toBe('cancelled');
    expect(toolSpan('pending').attributes['switchyard.tool.outcome']).toBe('cancelled');
    expect(parentId(toolSpan('pending'))).toBe(turn.spanContext().spanId);
    expect(spansNamed('chat ')).toHaveLength(1);

    const turns = await metricPoints('switchyard.turn.duration');
    expect(turns.map((point) => point.attributes)).toEqual([
      { 'switchyard.turn.status': 'aborted', 'gen_ai.agent.name': 'scribe' },
    ]);
  });

  it('marks a failed model request on its chat span and counts tokens by model and kind', async () => {
    const { result } = await runTurn(
      [
        {
          functionCalls: [{ name: 'echo', arguments: { word: 'x' } }],
          usage: { inputTokens: 50, outputTokens: 5 },
        },
        { failed: 'the model fell over' },
      ],
      { tools: [echo], telemetry: telemetry() },
    );
    expect(result.status).toBe('failed');
    const chats = spansNamed('chat ');
    expect(chats).toHaveLength(2);
    expect(chats[1]?.status.code).toBe(2);
    expect(chats[1]?.attributes['error.type']).toBe('ModelRequestError');
    expect(only('invoke_agent').attributes['switchyard.turn.status']).toBe('failed');

    const tokens = await metricPoints('gen_ai.client.token.usage');
    const sums = new Map(
      tokens.map((point) => [
        `${point.attributes['gen_ai.request.model']}:${point.attributes['gen_ai.token.type']}`,
        (point.value as Histogram).sum,
      ]),
    );
    expect(sums).toEqual(
      new Map([
        ['fake-model:input', 50],
        ['fake-model:output', 5],
      ]),
    );
  });
});

describe('telemetry options', () => {
  it('refuses a bad telemetry option when called, naming it', async () => {
    await expect(
      runTurn([], { tools: [], telemetry: { recordContent: 'yes' as unknown as boolean } }),
    ).rejects.toThrow(/telemetry\.recordContent must be a boolean, got "yes"/);
    await expect(runTurn([], { tools: [], telemetry: 5 as unknown as object })).rejects.toThrow(
      /telemetry must be an object/,
    );
  });
});
