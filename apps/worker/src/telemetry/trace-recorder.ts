import type { TracerProvider } from '@opentelemetry/api';
import { formatSpanTree } from './format-span-tree';

/** A tracer provider that keeps a turn's spans in memory, for `switchyard run --trace`. */
export interface TraceRecorder {
  /** Give it to the turn (`telemetry.tracerProvider`). */
  readonly tracerProvider: TracerProvider;
  /** The recorded spans as a tree with durations (`formatSpanTree`); stops the recorder. */
  tree(): Promise<string>;
}

/**
 * Starts a recorder for one turn's spans: the SDK's in-memory exporter behind a simple processor,
 * not registered globally (an OTLP export set up by `OTEL_*` is left as it is). The SDK is imported
 * here, only for `--trace`.
 */
export async function startTraceRecorder(): Promise<TraceRecorder> {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
    '@opentelemetry/sdk-trace-base'
  );
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    tracerProvider,
    async tree() {
      await tracerProvider.forceFlush();
      const text = formatSpanTree(exporter.getFinishedSpans());
      await tracerProvider.shutdown();
      return text;
    },
  };
}
