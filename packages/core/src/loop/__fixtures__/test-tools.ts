// Tools the loop tests share: what each does is in its name, so a test reads as the calls it scripts.
import { z } from 'zod';
import {
  type AgentToolResult,
  defineWorkerTool,
  type ToolExecutionContext,
  type ToolExecutionMode,
} from '../../index';

/**
 * A tool without parameters, `parallel` unless told: its description is `The <name> tool.` and its
 * activity label `Running <name>`; `execute` gets the call's context.
 */
export function bareTool(
  name: string,
  execute: (context: ToolExecutionContext) => AgentToolResult | Promise<AgentToolResult>,
  executionMode: ToolExecutionMode = 'parallel',
) {
  return defineWorkerTool({
    name,
    description: `The ${name} tool.`,
    schema: z.object({}),
    executionMode,
    describeActivity: () => `Running ${name}`,
    execute: (_params, context) => execute(context),
  });
}

/** Settles only when the call's signal aborts, rejecting with its reason (a tool that honours it). */
export function untilAborted(context: ToolExecutionContext): Promise<AgentToolResult> {
  return new Promise<AgentToolResult>((_resolve, reject) => {
    context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
  });
}

/** Never settles and ignores its signal: a tool the loop has to abandon. */
export function neverSettles(): Promise<AgentToolResult> {
  return new Promise<AgentToolResult>(() => {});
}

/**
 * A sequential tool named `block` that aborts `controller` (the turn's) with `operator cancelled`
 * 5 ms after it starts, then waits for its own signal.
 */
export function abortingTool(controller: AbortController) {
  return bareTool(
    'block',
    (context) => {
      setTimeout(() => controller.abort(new Error('operator cancelled')), 5);
      return untilAborted(context);
    },
    'sequential',
  );
}

/** `read_file`: returns `text of <path>` for any path, in parallel. */
export const readFileTool = defineWorkerTool({
  name: 'read_file',
  description: 'Read a file from the home folder.',
  schema: z.object({ path: z.string() }),
  executionMode: 'parallel',
  describeActivity: ({ path }) => `Reading ${path}`,
  execute: ({ path }) => ({ content: `text of ${path}` }),
});

/** What `waitingTool` tells a test about each call: its start (with its context) and its end. */
export interface WaitingToolObserver {
  start?: (id: string, context: ToolExecutionContext) => void;
  end?: (id: string) => void;
}

/** A tool that takes `{ id, waitMs }`, waits `waitMs` and returns `done <id>`. */
export function waitingTool(name: string, executionMode: ToolExecutionMode, observer: WaitingToolObserver) {
  return defineWorkerTool({
    name,
    description: `The ${name} tool.`,
    schema: z.object({ id: z.string(), waitMs: z.number() }),
    executionMode,
    describeActivity: ({ id }) => `Running ${id}`,
    async execute({ id, waitMs }, context) {
      observer.start?.(id, context);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      observer.end?.(id);
      return { content: `done ${id}` };
    },
  });
}
