import { metrics } from '@opentelemetry/api';
import type { ControlPlane } from '@switchyard/control-plane';
import { WORKER_TRACER_NAME } from './http-trace-middleware';

/** The daemon's queue metric names. */
export const QUEUE_METRICS = {
  /** Gauge: jobs waiting in each queue (created or waiting to retry), by `messaging.destination.name`. */
  depth: 'switchyard.queue.depth',
  /** Gauge, seconds: age of the oldest job waiting in each queue, by `messaging.destination.name`. */
  oldestJobAge: 'switchyard.queue.oldest_job.age',
} as const;

/**
 * Reports the depth of every queue and the age of its oldest waiting job when the metric reader
 * collects (every `OTEL_METRIC_EXPORT_INTERVAL`), through the global meter. Every process of a fleet
 * reports the same shared queues: read them per queue, not summed over processes.
 *
 * Contract: without an SDK the callback is never called and nothing is queried; a failed query
 * reports nothing for that collection. Returns a function that stops the reporting.
 */
export function observeQueues(controlPlane: Pick<ControlPlane, 'queueDepths'>): () => void {
  const meter = metrics.getMeter(WORKER_TRACER_NAME);
  const depth = meter.createObservableGauge(QUEUE_METRICS.depth, {
    unit: '{job}',
    description: 'Jobs waiting in the queue (created or waiting to retry)',
  });
  const age = meter.createObservableGauge(QUEUE_METRICS.oldestJobAge, {
    unit: 's',
    description: 'Age of the oldest job waiting in the queue',
  });
  const observables = [depth, age];
  const callback = async (result: {
    observe(observable: typeof depth, value: number, attributes: Record<string, string>): void;
  }) => {
    try {
      // Every queue, an empty one as 0: a gauge that vanished when its queue drained would read as
      // "no data", not as "nothing waiting".
      for (const queue of await controlPlane.queueDepths()) {
        const attributes = { 'messaging.destination.name': queue.queue };
        result.observe(depth, queue.waiting, attributes);
        result.observe(age, queue.oldestWaitingSeconds, attributes);
      }
    } catch {
      // A closing database or a busy moment: this collection reports no queues.
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
