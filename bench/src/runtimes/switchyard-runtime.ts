import type { ExportResult } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import {
  type AgentTelemetryOptions,
  type AnyWorkerAgentTool,
  createResponsesModel,
  defineWorkerTool,
  type ResponsesModel,
  runAgentLoop,
} from '@switchyard/core';
import OpenAI from 'openai';
import type { BenchRuntime, BenchTurn, ComposedTurn } from './bench-runtime';

/** Drops spans after the SDK has built and batched them: the SDK's cost without a network's. */
class DiscardingSpanExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A reader nobody collects from: instruments still aggregate every measurement. */
class IdleMetricReader extends MetricReader {
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

/** One turn through `runAgentLoop`; a turn that does not complete fails the round. */
async function runTurn(
  model: ResponsesModel,
  tools: AnyWorkerAgentTool[],
  turn: { instructions: string; input: string },
  telemetry: AgentTelemetryOptions | undefined,
): Promise<string> {
  const run = runAgentLoop({
    model,
    tools,
    instructions: turn.instructions,
    input: turn.input,
    ...(telemetry === undefined ? {} : { telemetry }),
  });
  const result = await run.result();
  if (result.status !== 'completed')
    throw new Error(`switchyard turn ended ${result.status}: ${result.error?.message}`);
  return result.output;
}

function prepareSwitchyard(turn: BenchTurn, telemetry: AgentTelemetryOptions | undefined) {
  const client = new OpenAI({ baseURL: turn.baseURL, apiKey: 'bench', maxRetries: 0 });
  const model = createResponsesModel({ client, model: 'bench-model' });
  const tools = turn.tools.map((tool) =>
    defineWorkerTool({
      name: tool.name,
      description: tool.description,
      schema: tool.schema,
      executionMode: tool.parallel ? 'parallel' : 'sequential',
      describeActivity: () => tool.name,
      execute: async (params) => ({ content: await tool.execute(params) }),
    }),
  );
  return () => runTurn(model, tools, turn, telemetry);
}

function composeSwitchyard(turn: ComposedTurn, telemetry: AgentTelemetryOptions | undefined) {
  const client = new OpenAI({ baseURL: turn.baseURL, apiKey: 'bench', maxRetries: 0 });
  const model = createResponsesModel({ client, model: 'bench-model' });
  return async () => {
    // As a category creator does on every turn: a new tool object per spec, defined (and its
    // schema converted) inside the turn.
    const tools = turn.specs().map((spec) =>
      defineWorkerTool({
        name: spec.name,
        description: spec.description,
        schema: spec.schema,
        executionMode: 'parallel',
        describeActivity: () => spec.name,
        execute: async (params) => ({ content: await turn.execute(spec, params) }),
      }),
    );
    turn.toolsReady?.();
    return runTurn(model, tools, turn, telemetry);
  };
}

/**
 * Switchyard: `runAgentLoop` over `createResponsesModel`, with OpenTelemetry through the API alone
 * (no SDK installed: the default for an application that does not install one).
 */
export const switchyardRuntime: BenchRuntime = {
  name: 'switchyard',
  prepare: (turn) => prepareSwitchyard(turn, undefined),
  composeTurn: (turn) => composeSwitchyard(turn, undefined),
};

/**
 * Switchyard with an OpenTelemetry SDK: a tracer provider with the batch processor and an exporter
 * that discards, a meter provider with a reader. Every span and measurement is recorded and built.
 */
export const switchyardOtelRuntime: BenchRuntime = {
  name: 'switchyard + OTel SDK',
  prepare: (turn) => prepareSwitchyard(turn, otelTelemetry()),
  composeTurn: (turn) => composeSwitchyard(turn, otelTelemetry()),
};

function otelTelemetry(): AgentTelemetryOptions {
  const exporter = new DiscardingSpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const meterProvider = new MeterProvider({ readers: [new IdleMetricReader()] });
  return { tracerProvider, meterProvider, agentName: 'bench' };
}
