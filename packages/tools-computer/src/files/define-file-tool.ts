import { defineWorkerTool, type WorkerAgentTool, type ZodWorkerToolDefinition } from '@switchyard/core';
import type { z } from 'zod';

/** The labels of a file tool's calls: while one runs, when it could not do its work, when it did. */
export interface FileToolActivity<TParams, TDetails> {
  /** While the call runs, e.g. "Reading notes/todo.md". */
  running(params: TParams): string;
  /** When the call ended without details (an `isError` result), e.g. "Could not read notes/todo.md". */
  failed(params: TParams): string;
  /** When the call did its work, e.g. "Read 120 lines of notes/todo.md". */
  done(params: TParams, details: TDetails): string;
}

/** A file tool: a Zod tool whose access and activity labels are declared rather than spelled out. */
export interface FileToolDefinition<TSchema extends z.ZodType<Record<string, unknown>>, TDetails>
  extends Pick<ZodWorkerToolDefinition<TSchema, TDetails>, 'name' | 'description' | 'schema' | 'execute'> {
  /**
   * `'read'`: changes nothing, runs beside other calls; `'write'`: changes the home, runs alone and
   * counts as destructive.
   */
  access: 'read' | 'write';
  /** The labels of its calls. */
  activity: FileToolActivity<z.output<TSchema>, TDetails>;
}

/** The core tool definition a file tool's access stands for. */
const ACCESS = {
  read: { executionMode: 'parallel', isReadOnly: true },
  write: { executionMode: 'sequential', isDestructive: true },
} as const;

/**
 * Defines a file tool with `defineWorkerTool`: its access sets its execution mode and safety
 * metadata, its activity its running and completed labels.
 *
 * Contract: the same checks and errors as `defineWorkerTool`.
 */
export function defineFileTool<TSchema extends z.ZodType<Record<string, unknown>>, TDetails>(
  definition: FileToolDefinition<TSchema, TDetails>,
): WorkerAgentTool<z.output<TSchema>, TDetails> {
  const { access, activity, ...tool } = definition;
  return defineWorkerTool<TSchema, TDetails>({
    ...tool,
    ...ACCESS[access],
    describeActivity: (params) => activity.running(params),
    describeCompletedActivity: (params, result) =>
      result.details === undefined ? activity.failed(params) : activity.done(params, result.details),
  });
}
