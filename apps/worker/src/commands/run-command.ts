import { checkCommandSandbox } from '../config/command-sandbox';
import { loadCategoryPackages } from '../config/load-category-packages';
import { loadConfig } from '../config/load-config';
import { resolveAgent } from '../config/resolve-agent';
import { resolveModelEndpoint } from '../config/resolve-model-endpoint';
import { type CommandIO, createWorkerModel, runTextTurnWithProgress } from '../run-text-turn';
import { startTraceRecorder } from '../telemetry/trace-recorder';
import { startWorkerTelemetry } from '../telemetry/worker-telemetry';
import { openWorkerServices } from '../worker-services';

/** Options of `switchyard run`. */
export interface RunCommandOptions {
  /** The prompt. */
  prompt: string;
  /** `--agent`. */
  agent?: string;
  /** `--json`. */
  json: boolean;
  /** `--confirm-destructive`. */
  confirmDestructive: boolean;
  /** `--trace`: print the turn's span tree with durations when it ends. */
  trace?: boolean;
  /** `--config`. */
  configPath?: string;
  /** The environment (overrides, keys). */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory. */
  cwd: string;
  /** Aborts the turn. */
  signal?: AbortSignal;
}

/**
 * `switchyard run "<prompt>"`: one text turn with live progress (or `--json` events).
 *
 * Contract: resolves with the exit code: 0 for a completed turn, 1 otherwise. Throws
 * `WorkerConfigError` for a bad configuration or no model endpoint (naming the variable to set).
 */
export async function runCommand(options: RunCommandOptions, io: CommandIO): Promise<number> {
  const config = await loadCategoryPackages(
    await loadConfig({
      ...(options.configPath === undefined ? {} : { path: options.configPath }),
      cwd: options.cwd,
      env: options.env,
    }),
  );
  const endpoint = resolveModelEndpoint(config);
  const agent = resolveAgent(config, options.agent);
  await checkCommandSandbox(config, (line) => io.stderr.write(`${line}\n`), [agent.id]);
  const telemetry = await startWorkerTelemetry(options.env);
  const trace = options.trace === true ? await startTraceRecorder() : undefined;
  const opened = await openWorkerServices(config);
  try {
    const result = await runTextTurnWithProgress({
      config,
      agent,
      prompt: options.prompt,
      model: createWorkerModel(config, endpoint),
      services: opened.services,
      json: options.json,
      confirmDestructive: options.confirmDestructive,
      io,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(trace === undefined ? {} : { telemetry: { tracerProvider: trace.tracerProvider } }),
    });
    // Under --json stdout carries only event lines: the tree goes to stderr there.
    if (trace !== undefined) (options.json ? io.stderr : io.stdout).write(await trace.tree());
    return result.status === 'completed' || result.status === 'ended-by-tool' ? 0 : 1;
  } finally {
    await opened.close();
    await telemetry?.shutdown();
  }
}
