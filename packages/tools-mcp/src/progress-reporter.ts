import type { ToolExecutionContext } from '@switchyard/core';

/** The least time between two progress reports of one call that reach the turn, in ms. */
export const PROGRESS_INTERVAL_MS = 100;
/** The most characters of a progress message that reach the turn. */
export const PROGRESS_MESSAGE_CHARACTERS = 200;

/** What the SDK hands `onprogress`. */
interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Passes a server's progress notifications for one call on to the turn, at most one every
 * `PROGRESS_INTERVAL_MS` and with messages cut to `PROGRESS_MESSAGE_CHARACTERS`: every report becomes
 * an event of the turn, and a server may send thousands a second, each with a message of megabytes.
 * Skipped reports only keep the call alive (the SDK resets its idle timeout on each).
 */
export function createProgressReporter(context: ToolExecutionContext): (progress: McpProgress) => void {
  let last = Number.NEGATIVE_INFINITY;
  return ({ progress, total, message }) => {
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    const shown =
      message === undefined || message.length <= PROGRESS_MESSAGE_CHARACTERS
        ? message
        : `${message.slice(0, PROGRESS_MESSAGE_CHARACTERS)}…`;
    context.reportProgress({
      completed: progress,
      ...(total === undefined ? {} : { total }),
      ...(shown === undefined ? {} : { message: shown }),
    });
  };
}
