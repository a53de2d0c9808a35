import { checkCommandSandbox } from '../config/command-sandbox';
import { loadCategoryPackages } from '../config/load-category-packages';
import { loadConfig } from '../config/load-config';
import { resolveAgent } from '../config/resolve-agent';
import { resolveModelEndpoint } from '../config/resolve-model-endpoint';
import { mcpSkippedToolLines } from '../mcp-skipped-tools-log';
import { createWorkerModel } from '../model/worker-model';
import { type CommandIO, runTextTurnWithProgress } from '../run-text-turn';
import { findRunningDaemon } from '../running-daemon';
import { startTraceRecorder } from '../telemetry/trace-recorder';
import { startWorkerTelemetry } from '../telemetry/worker-telemetry';
import { needsControlPlane, openWorkerServices } from '../worker-services';

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
 * Contract: resolves with the exit code: 0 for a completed turn, 1 otherwise (also, before anything
 * runs, when a `switchyard serve` holds the folder's embedded database the turn needs: the message
 * says how to start the turn in it). Throws
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
  const daemon = needsControlPlane(config) ? await findRunningDaemon(config) : undefined;
  if (daemon !== undefined) {
    // Its turn would need the embedded database, which the daemon holds: say what works instead.
    io.stderr.write(
      `switchyard: run: switchyard serve (pid ${daemon.pid}) holds this folder's embedded database, which this turn's tools need, so the turn cannot run in this process.\n` +
        `Start it in the daemon instead: POST ${daemon.url}/v1/turns with {"prompt": "...", "agent": "${agent.id}"} (its console at ${daemon.url}/ does the same), ` +
        'or stop serve first, or put the database on PostgreSQL (database.url), where run works beside running daemons.\n',
    );
    return 1;
  }
  await checkCommandSandbox(config, (line) => io.stderr.write(`${line}\n`), [agent.id]);
  const telemetry = await startWorkerTelemetry(options.env);
  const trace = options.trace === true ? await startTraceRecorder() : undefined;
  const opened = await openWorkerServices(config);
  for (const line of mcpSkippedToolLines(opened.mcp, 'switchyard')) io.stderr.write(`${line}\n`);
  try {
    const result = await runTextTurnWithProgress({
      config,
      agent,
      prompt: options.prompt,
      model: createWorkerModel(config.model, endpoint),
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
