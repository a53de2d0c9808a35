import {
  type AgentRunResult,
  type AgentTelemetryOptions,
  type ResponsesModel,
  runAgentLoop,
  type ToolSearchMode,
  type TurnEndEvent,
} from '@switchyard/core';
import { isOpenAIEndpoint } from '@switchyard/core/internal';
import type { TurnAgent } from './config/resolve-agent';
import type { WorkerConfig } from './config/worker-config';
import { TurnDeadline } from './daemon/turn-deadline';
import { eventToJsonLine, turnEndJsonLine } from './progress/event-json';
import { createTerminalConfirm } from './progress/terminal-confirm';
import { type ProgressOutput, TurnProgress } from './progress/turn-progress';
import { visibleControls } from './progress/visible-controls';
import {
  buildTextTurnInstructions,
  buildTextTurnTools,
  prepareAgentHome,
  type TextTurnServices,
} from './text-turn';

/** The streams a command talks through. */
export interface CommandIO {
  /** Progress, text and summaries (JSON lines with `--json`). */
  stdout: ProgressOutput;
  /** Diagnostics, and questions under `--json`. */
  stderr: ProgressOutput;
  /** Answers to `--confirm-destructive` questions. */
  stdin: NodeJS.ReadableStream;
}

/** How a configuration offers deferred tools: its `model.toolSearch`, else the model's default. */
export function toolSearchMode(config: WorkerConfig, model?: ResponsesModel): ToolSearchMode {
  if (config.model.toolSearch !== undefined) return config.model.toolSearch;
  if (model !== undefined) return model.defaultToolSearch;
  return isOpenAIEndpoint(config.model.baseURL) ? 'native' : 'client';
}

/** Options of `runTextTurnWithProgress`. */
export interface RunTextTurnOptions {
  /** The worker's configuration. */
  config: WorkerConfig;
  /** The agent. Its home is created if missing. */
  agent: TurnAgent;
  /** The user's message. */
  prompt: string;
  /** The model. */
  model: ResponsesModel;
  /** Opened services (`openWorkerServices`). */
  services: TextTurnServices;
  /** Print the event stream as JSON lines instead of progress. */
  json: boolean;
  /** Ask y/n before each destructive call. */
  confirmDestructive: boolean;
  /** The streams. */
  io: CommandIO;
  /** Aborts the turn (Ctrl-C). */
  signal?: AbortSignal;
  /** Force terminal or plain progress (default: stdout's `isTTY`). */
  interactive?: boolean;
  /** OpenTelemetry options for the turn (`--trace` passes its own tracer provider). */
  telemetry?: AgentTelemetryOptions;
  /** Receives the progress renderer before the turn starts (to print lines of other work above the spinners). */
  onProgress?: (progress: TurnProgress) => void;
}

/**
 * Runs one text turn with the composed tools and the Skills-bearing instructions, rendering it:
 * live progress and a summary line, or (`json`) the event stream as JSON lines.
 *
 * Contract: resolves with the run's result (never rejects for a turn failure: see `status`);
 * throws before the turn for a composition error (a creator refusing its options).
 */
export async function runTextTurnWithProgress(options: RunTextTurnOptions): Promise<AgentRunResult> {
  const { config, agent, io } = options;
  await prepareAgentHome(agent);
  const instructions = await buildTextTurnInstructions({ config, agent });
  const tools = buildTextTurnTools({
    config,
    agent,
    services: options.services,
    todos: { items: [] },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const progress = options.json
    ? undefined
    : new TurnProgress({
        output: io.stdout,
        ...(options.interactive === undefined ? {} : { interactive: options.interactive }),
      });
  if (progress !== undefined) options.onProgress?.(progress);
  // A Skill's folder name and its problems come from files a model may have written.
  for (const problem of instructions.skillProblems) {
    const line = `switchyard: skill left out: ${problem.file}:${problem.line}: ${problem.message}`;
    io.stderr.write(`${visibleControls(line)}\n`);
  }
  const confirm = options.confirmDestructive
    ? createTerminalConfirm({
        input: io.stdin,
        output: options.json ? io.stderr : io.stdout,
        onAsk: (itemIndex, activity) => {
          progress?.label(itemIndex, activity);
          progress?.pause();
        },
        onAnswered: () => progress?.resume(),
      })
    : undefined;
  // The turn limit is a timer this function holds until the turn ends: an AbortSignal.timeout inside
  // AbortSignal.any can be garbage-collected on Node 20 before it fires, and then no limit applies.
  const deadline = new TurnDeadline(config.limits.turnTimeoutMs);
  const turnSignal =
    options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
  try {
    const run = runAgentLoop({
      model: options.model,
      tools,
      instructions: instructions.instructions,
      input: options.prompt,
      signal: turnSignal,
      maxIterations: config.limits.maxIterations,
      toolSearch: toolSearchMode(config, options.model),
      telemetry: { agentName: agent.id, ...options.telemetry },
      ...(config.limits.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: config.limits.toolTimeoutMs }),
      maxParallelCalls: config.limits.maxParallelCalls,
      ...(confirm === undefined ? {} : { beforeToolCall: confirm.beforeToolCall }),
    });
    let turnEnd: TurnEndEvent | undefined;
    for await (const event of run) {
      // Under --json the turn-end line waits for the run's result: it carries the final text.
      if (progress === undefined && event.type === 'turn-end') turnEnd = event;
      else if (progress === undefined) io.stdout.write(eventToJsonLine(event));
      else progress.handle(event);
    }
    const result = await run.result();
    if (turnEnd !== undefined) io.stdout.write(turnEndJsonLine(turnEnd, result.output));
    progress?.finish(result);
    return result;
  } finally {
    deadline.dispose();
    confirm?.close();
  }
}
