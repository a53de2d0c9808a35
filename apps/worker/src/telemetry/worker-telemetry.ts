/** What `startWorkerTelemetry` started: flush and stop it before the process exits. */
export interface WorkerTelemetry {
  /** Where spans and metrics go (the traces endpoint), for the start-up line. */
  readonly endpoint: string;
  /** Exports what is buffered and stops the SDK. Never rejects. */
  shutdown(): Promise<void>;
}

/** The service name the worker reports unless `OTEL_SERVICE_NAME` says otherwise. */
export const WORKER_SERVICE_NAME = 'switchyard-worker';

const DEFAULT_METRIC_INTERVAL_MS = 60_000;

/**
 * Whether the environment asks for telemetry: one of the standard OTLP endpoint variables is set and
 * `OTEL_SDK_DISABLED` is not `true`.
 */
export function telemetryRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return [
    env.OTEL_EXPORTER_OTLP_ENDPOINT,
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
  ].some((value) => value !== undefined && value.trim() !== '');
}

function tracesEndpoint(env: Readonly<Record<string, string | undefined>>): string {
  const explicit = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (explicit) return explicit;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? '';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts the OpenTelemetry Node SDK when the standard `OTEL_*` variables ask for it (see
 * `telemetryRequested`): traces and metrics over OTLP/HTTP with the standard exporters (they read
 * `OTEL_EXPORTER_OTLP_*` for endpoints, headers and timeouts themselves), the W3C trace-context
 * propagator and an AsyncLocalStorage context manager, `service.name` = `OTEL_SERVICE_NAME` or
 * `switchyard-worker`, plus `OTEL_RESOURCE_ATTRIBUTES`. Metrics are exported every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60 000).
 *
 * The SDK is imported only here, and only when asked for, so a worker without a collector does not
 * load it: core's spans stay the API's no-ops.
 *
 * Contract: resolves `undefined` when no endpoint is set; otherwise the started SDK. Throws
 * `TypeError` naming `OTEL_METRIC_EXPORT_INTERVAL` for a value that is not a positive integer.
 */
export async function startWorkerTelemetry(
  env: Readonly<Record<string, string | undefined>>,
): Promise<WorkerTelemetry | undefined> {
  if (!telemetryRequested(env)) return undefined;
  const intervalText = env.OTEL_METRIC_EXPORT_INTERVAL?.trim();
  const exportIntervalMillis =
    intervalText === undefined || intervalText === '' ? DEFAULT_METRIC_INTERVAL_MS : Number(intervalText);
  if (!(Number.isSafeInteger(exportIntervalMillis) && exportIntervalMillis > 0)) {
    throw new TypeError(
      `OTEL_METRIC_EXPORT_INTERVAL: expected a positive whole number of milliseconds, got ${JSON.stringify(intervalText)}`,
    );
  }
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { OTLPMetricExporter },
    { PeriodicExportingMetricReader },
    resources,
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
  ]);
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || WORKER_SERVICE_NAME;
  const sdk = new NodeSDK({
    resource: resources.resourceFromAttributes({ 'service.name': serviceName }),
    // The env detector adds OTEL_RESOURCE_ATTRIBUTES; host and process detectors are cheap and tell
    // the fleet's processes apart.
    resourceDetectors: [resources.envDetector, resources.hostDetector, resources.processDetector],
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis,
        exportTimeoutMillis: Math.min(30_000, exportIntervalMillis),
      }),
    ],
    // No automatic instrumentation: the worker's own spans (core's turns, the API's requests) are
    // what an operator reads; patching every module would cost start-up and add noise.
    instrumentations: [],
  });
  sdk.start();
  return {
    endpoint: tracesEndpoint(env),
    async shutdown() {
      try {
        await sdk.shutdown();
      } catch {
        // A collector gone at exit must not turn a clean stop into a failure.
      }
    },
  };
}
