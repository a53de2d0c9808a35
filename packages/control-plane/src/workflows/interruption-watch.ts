import type { SqlExecutor } from '../database/database';
import type { QueuedWork } from './queued-work';

/** Why a running turn's signal fired: its workflow or job was cancelled, or another attempt took its unit. */
export type Interruption = 'cancelled' | 'superseded';

/** Whether the running attempt `attempt` should stop: its work was cancelled, or handed to another attempt. */
export async function findInterruption(
  executor: SqlExecutor,
  work: QueuedWork,
  attempt: number,
): Promise<Interruption | undefined> {
  const { rows } =
    work.kind === 'background-job'
      ? await executor.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM switchyard.background_jobs WHERE id = $1',
          [work.jobId],
        )
      : await executor.query<{ status: string; attempts: number }>(
          `SELECT CASE WHEN w.status = 'cancelled' THEN 'cancelled' ELSE t.status END AS status, t.attempts
           FROM switchyard.workflow_tasks t JOIN switchyard.workflows w ON w.id = t.workflow_id
           WHERE t.workflow_id = $1 AND t.task_id = $2`,
          [work.workflowId, work.taskId],
        );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.status === 'cancelled') return 'cancelled';
  // Another attempt started, or this one was handed back (queued again, or parked as failed) while
  // this worker was taken for dead: whatever it does now is not kept.
  if (row.attempts !== attempt || row.status === 'queued' || row.status === 'failed') return 'superseded';
  return undefined;
}

/**
 * Polls, every `intervalMs`, whether a running attempt was cancelled or superseded, and aborts
 * `signal` when it was. A failed poll (the database unreachable for a moment) is reported to
 * `onError` and the next poll tries again: one lost check only delays the abort.
 */
export class InterruptionWatch {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;

  constructor(
    executor: SqlExecutor,
    work: QueuedWork,
    attempt: number,
    intervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.#timer = setInterval(() => {
      findInterruption(executor, work, attempt).then(
        (interruption) => {
          if (interruption === 'cancelled') this.#controller.abort(new Error('cancelled'));
          if (interruption === 'superseded') {
            this.#controller.abort(
              new Error(
                `attempt ${attempt} was handed to another worker (this one was taken for dead): its work is not kept`,
              ),
            );
          }
        },
        (error: unknown) => {
          try {
            onError(error);
          } catch {
            // A throwing error handler must not become an unhandled rejection of the poll.
          }
        },
      );
    }, intervalMs);
  }

  /** Fires when the attempt was cancelled or superseded. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Stops polling (the signal keeps its state). */
  stop(): void {
    clearInterval(this.#timer);
  }
}
