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

// pg-boss 10's queue and job tables: every queue is reported, an empty one as 0 (a gauge that
// vanished when its queue drained would read as "no data", not as "nothing waiting"). One grouped
// scan per collection, not one per queue.
const WAITING_JOBS = `
  SELECT q.name, count(j.id)::int AS depth,
         coalesce(extract(epoch FROM clock_timestamp() - min(j.created_on)), 0)::float8 AS oldest_age
    FROM pgboss.queue q
    LEFT JOIN pgboss.job j ON j.name = q.name AND j.state IN ('created', 'retry')
   GROUP BY q.name`;

/**
 * Reports the depth of every queue and the age of its oldest waiting job when the metric reader
 * collects (every `OTEL_METRIC_EXPORT_INTERVAL`), through the global meter. Every process of a fleet
 * reports the same shared queues: read them per queue, not summed over processes.
 *
 * Contract: without an SDK the callback is never called and nothing is queried; a failed query
 * reports nothing for that collection. Returns a function that stops the reporting.
 */
export function observeQueues(controlPlane: Pick<ControlPlane, 'query'>): () => void {
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
      const { rows } = await controlPlane.query<{ name: string; depth: number; oldest_age: number }>(
        WAITING_JOBS,
      );
      for (const row of rows) {
        const attributes = { 'messaging.destination.name': row.name };
        result.observe(depth, row.depth, attributes);
        result.observe(age, Math.max(0, row.oldest_age), attributes);
      }
    } catch {
      // A closing database or a busy moment: this collection reports no queues.
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
