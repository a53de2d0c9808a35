import type { ToolExecutionContext } from '@switchyard/core';

/** The least time between two progress reports of one call that reach the turn, in ms. */
export const PROGRESS_INTERVAL_MS = 100;
/** The most characters of a progress message that reach the turn. */
export const PROGRESS_MESSAGE_CHARACTERS = 200;

/** One call's progress reporting: `report` each notification's params, `flush` when the result came. */
export interface ProgressReporter {
  /** Takes a `notifications/progress` params object as the server sent it (untrusted). */
  report(params: Record<string, unknown>): void;
  /** Passes on the last report the interval held back, if any: the turn sees where the call ended. */
  flush(): void;
}

function finiteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Passes a server's progress notifications for one call on to the turn, at most one every
 * `PROGRESS_INTERVAL_MS` and with messages cut to `PROGRESS_MESSAGE_CHARACTERS`: every report becomes
 * an event of the turn, and a server may send thousands a second, each with a message of megabytes.
 * A report held back by the interval is kept (only the latest, already cut) and passed on by `flush`.
 *
 * Contract: params without a finite `progress` are ignored, as are a `total` that is not a finite
 * number and a `message` that is not a string; nothing of a held-back report but its cut form is kept.
 */
export function createProgressReporter(context: ToolExecutionContext): ProgressReporter {
  let last = Number.NEGATIVE_INFINITY;
  let held: Parameters<ToolExecutionContext['reportProgress']>[0] | undefined;
  return {
    report(params) {
      const { progress, total, message } = params;
      if (!finiteNumber(progress)) return;
      const shown =
        typeof message !== 'string' || message.length <= PROGRESS_MESSAGE_CHARACTERS
          ? message
          : `${message.slice(0, PROGRESS_MESSAGE_CHARACTERS)}…`;
      const update = {
        completed: progress,
        ...(finiteNumber(total) ? { total } : {}),
        ...(typeof shown === 'string' ? { message: shown } : {}),
      };
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) {
        held = update;
        return;
      }
      last = now;
      held = undefined;
      context.reportProgress(update);
    },
    flush() {
      if (held === undefined) return;
      const update = held;
      held = undefined;
      last = performance.now();
      context.reportProgress(update);
    },
  };
}
