import { randomUUID } from 'node:crypto';
import type { ToolExecutionContext, ToolProgress } from '@switchyard/core';

/** A tool execution context for tests, with its abort controller and the progress it received. */
export interface TestToolContext extends ToolExecutionContext {
  /** Aborts `signal`. */
  readonly controller: AbortController;
  /** Every progress report, in order. */
  readonly progress: ToolProgress[];
}

/**
 * Builds the context a tool's `execute` receives, for calling a tool directly in a test.
 *
 * @example
 * const context = createTestToolContext();
 * const result = await tool.execute({ path: 'a.md' }, context);
 * expect(context.progress).toEqual([]);
 */
export function createTestToolContext(
  options: { toolCallId?: string; signal?: AbortSignal; idempotencyKey?: string } = {},
): TestToolContext {
  const controller = new AbortController();
  const progress: ToolProgress[] = [];
  return {
    controller,
    progress,
    signal: options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal,
    toolCallId: options.toolCallId ?? 'call_test',
    // What a turn gives a call: `<turnId>:<itemIndex>`, the same on every attempt; a new turn here
    // for every context, so two contexts are two calls (an idempotent tool would answer the second
    // with the first's effect).
    idempotencyKey: options.idempotencyKey ?? `turn_test_${randomUUID()}:1`,
    reportProgress: (report) => {
      progress.push(report);
    },
  };
}
