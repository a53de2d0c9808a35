import { type ControlPlane, openControlPlane } from '@switchyard/control-plane';
import { connectMcpServers, type McpServers } from '@switchyard/tools-mcp';
import {
  approvalPolicyOf,
  budgetsOf,
  checkCommandSandbox,
  resolveAgent,
  resolveModelEndpoint,
  type WorkerConfig,
} from '../config';
import { describeApprovalPolicy } from '../config/describe-approval-policy';
import { WorkerConfigError } from '../config/worker-config-error';
import { mcpSkippedToolLines } from '../mcp-skipped-tools-log';
import { startThreadedModel, type ThreadedModel } from '../model/threaded-model';
import { toolSearchMode } from '../run-text-turn';
import { recordRunningDaemon } from '../running-daemon';
import { readSkillManifest } from '../skill-manifest';
import { observeQueues } from '../telemetry/queue-metrics';
import { tracedWorkServices, traceMeta } from '../telemetry/traced-work-services';
import { startWorkerTelemetry } from '../telemetry/worker-telemetry';
import {
  buildTaskTurnBrainTools,
  buildTaskTurnWebTools,
  buildTextTurnInstructions,
  buildTextTurnTools,
  checkTextTurnComposition,
  prepareAgentHome,
} from '../text-turn';
import { buildToolManifest } from '../tool-manifest';
import { VERSION } from '../version';
import { SCRIPTED_MODEL_SUMMARY, type ScriptedModel, startScriptedModel } from './built-in-scripted-model';
import { checkCommandsReachApi } from './check-commands-reach-api';
import { fileBeforeWriteOf } from './file-before-write';
import { rootWarning } from './root-warning';
import { createSkillProblemLog } from './skill-problem-log';
import { checkTokenForHost, type DaemonOptions, startDaemon } from './start-daemon';
import { type CommandSandboxWatch, watchCommandSandbox } from './watch-command-sandbox';
import { workTurnSource } from './work-source';

/** What `switchyard serve` runs with: the configuration, and the flags that override its `serve` section. */
export interface ServeCommandOptions {
  /** The loaded configuration. */
  config: WorkerConfig;
  /** `--agent` (repeatable): overrides `serve.agents`. */
  agents?: readonly string[];
  /** `--host`: overrides `serve.host`. */
  host?: string;
  /** `--port`: overrides `serve.port`. */
  port?: number;
  /** `--health-port`: overrides `serve.healthPort`. */
  healthPort?: number;
  /** `--grace-ms`: overrides `serve.graceMs`. */
  graceMs?: number;
  /** `--tick-ms`: overrides `serve.tickMs`. */
  tickMs?: number;
  /** `--poll-seconds`: overrides `serve.pollSeconds`. */
  pollSeconds?: number;
  /**
   * `--scripted-model`: run on the built-in scripted model (canned answers, no API key), started in
   * this process, instead of the configured model.
   */
  scriptedModel?: boolean;
  /** The process environment (what the computer tools' allowlist picks from). */
  environment: Readonly<Record<string, string | undefined>>;
  /** Resolves when the process is asked to stop (SIGTERM or SIGINT): the daemon drains then. */
  stopRequested: Promise<NodeJS.Signals>;
}

function flagError(flag: string, message: string): WorkerConfigError {
  return new WorkerConfigError({ issues: [{ field: flag, message }] });
}

/** Checks the flags' values as the configuration's fields are checked, naming the flag. */
function checkFlags(options: ServeCommandOptions): void {
  const { port, healthPort, graceMs, tickMs, pollSeconds } = options;
  for (const [flag, value] of [
    ['--port', port],
    ['--health-port', healthPort],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= 65_535)) {
      throw flagError(flag, `expected an integer from 0 to 65535, got ${value}`);
    }
  }
  if (graceMs !== undefined && !(Number.isInteger(graceMs) && graceMs >= 0)) {
    throw flagError('--grace-ms', `expected a whole number of milliseconds >= 0, got ${graceMs}`);
  }
  if (tickMs !== undefined && !(Number.isInteger(tickMs) && tickMs >= 1)) {
    throw flagError('--tick-ms', `expected a whole number of milliseconds >= 1, got ${tickMs}`);
  }
  if (pollSeconds !== undefined && !(pollSeconds >= 0.5 && pollSeconds <= 3_600)) {
    throw flagError('--poll-seconds', `expected a number of seconds from 0.5 to 3600, got ${pollSeconds}`);
  }
}

/** What `switchyard serve` runs with once its flags and configuration were checked. */
interface ServePlan {
  /** The configuration. */
  config: WorkerConfig;
  /** The agents whose work this process runs. */
  agents: readonly string[];
  /** Where the HTTP API listens. */
  host: string;
  /** The bearer token, when set. */
  token: string | undefined;
  /** The health port, when set. */
  healthPort: number | undefined;
  /** The model every turn talks to, its requests made on a thread of their own. */
  model: ThreadedModel;
  /** How each agent's commands run (the start-up probe), for the sandbox watch. */
  sandboxes: Awaited<ReturnType<typeof checkCommandSandbox>>;
}

/**
 * Checks everything that can be checked before anything is opened: the flags, the model endpoint,
 * the token for the host, the command sandbox, every agent's home and tool composition; prints each
 * agent's approval policy; builds the model.
 */
async function prepareServe(options: ServeCommandOptions, print: (line: string) => void): Promise<ServePlan> {
  checkFlags(options);
  const { config } = options;
  const endpoint = resolveModelEndpoint(config);
  const { serve } = config;
  const agents = options.agents ?? serve.agents ?? [config.agent];
  const turnAgents = agents.map((name) => resolveAgent(config, name));
  const token = serve.token;
  const host = options.host ?? serve.host;
  const healthPort = options.healthPort ?? serve.healthPort;
  checkTokenForHost(host, token, serve.tokenVariable);
  // Probed once without blocking (the tools built below reuse the answer); 'required' refuses here.
  const sandboxes = await checkCommandSandbox(config, print, agents);
  // A command that can reach the loopback API must not find it tokenless.
  checkCommandsReachApi({ agents, statuses: sandboxes, token, tokenVariable: serve.tokenVariable });
  const asRoot = rootWarning(sandboxes);
  if (asRoot !== undefined) print(asRoot);
  // Every agent's home exists before its first turn, and each enabled category takes its options:
  // a bad configuration fails here, naming the field, not in the first turn.
  for (const agent of turnAgents) {
    await prepareAgentHome(agent);
    checkTextTurnComposition({ config, agent });
  }
  // Which calls run with nobody watching, per agent, before any turn can run.
  for (const agent of agents) {
    print(`switchyard serve: ${describeApprovalPolicy(agent, approvalPolicyOf(config, agent))}`);
  }
  const model = await startThreadedModel(config.model, endpoint);
  return { config, agents, host, token, healthPort, model, sandboxes };
}

/** Opens the control plane with the `serve` section's delivery policy, its errors printed. */
function openServeControlPlane(
  options: ServeCommandOptions,
  print: (line: string) => void,
): Promise<ControlPlane> {
  const { config } = options;
  const { serve } = config;
  const pollingIntervalSeconds = options.pollSeconds ?? serve.pollSeconds;
  const delivery = {
    expireInSeconds: serve.expireSeconds,
    retryLimit: serve.retryLimit,
    retryDelaySeconds: serve.retryDelaySeconds,
    retryBackoff: serve.retryBackoff,
  };
  return openControlPlane({
    environment: {},
    ...(config.database.url === undefined
      ? { dataDir: config.database.dataDir }
      : { databaseUrl: config.database.url }),
    // One delivery policy for both queues: expiry (the safety net, past the turn limit), retries and
    // their delay; a unit whose process died is handed back by the sweep of interrupted turns.
    turnRequests: { pollingIntervalSeconds, ...delivery },
    workTurns: { pollingIntervalSeconds, ...delivery },
    // A daemon keeps its PostgreSQL connections open: a burst of turns never waits for new ones.
    fixedPool: true,
    ...(config.categories.brain === undefined ? {} : { brain: config.categories.brain }),
    // Each agent's hourly limits on starting work, counted where the work is stored.
    startLimits: (agentId) => budgetsOf(config, agentId),
    onError: (error) => print(`switchyard serve: control plane: ${String(error)}`),
  });
}

/** The configured MCP servers, connected (their calls carry the trace), or undefined when none is configured. */
async function connectServeMcp(config: WorkerConfig): Promise<McpServers | undefined> {
  const mcpServers = config.categories.mcp?.servers;
  return mcpServers === undefined
    ? undefined
    : connectMcpServers({ servers: mcpServers, callMeta: traceMeta });
}

/**
 * The daemon's options from the configuration and the flags: the listener, the limits, the agents'
 * approval policies, the work sources with the task-turn tools, and the text turns composed exactly
 * as `switchyard run` composes them.
 */
function daemonOptionsOf(
  options: ServeCommandOptions,
  plan: ServePlan,
  controlPlane: ControlPlane,
  mcp: McpServers | undefined,
  sandboxWatch: CommandSandboxWatch,
  print: (line: string) => void,
): DaemonOptions {
  const { config, model, agents, host, token, healthPort } = plan;
  // Every turn reads its agent's Skills again; a Skill left out is logged when its problem appears.
  const logSkillProblems = createSkillProblemLog(print);
  const { serve } = config;
  const webTools = buildTaskTurnWebTools(config);
  const brainTools = buildTaskTurnBrainTools(config, controlPlane.brain);
  return {
    controlPlane,
    model,
    agents,
    host,
    port: options.port ?? serve.port,
    ...(healthPort === undefined ? {} : { healthPort }),
    ...(serve.maxWaitingWork === undefined ? {} : { maxWaitingWork: serve.maxWaitingWork }),
    ...(token === undefined ? {} : { token }),
    ...(serve.readToken === undefined ? {} : { readToken: serve.readToken }),
    allowedHosts: serve.allowedHosts,
    console: serve.console,
    maxEventStreamBytes: serve.maxEventStreamBytes,
    maxEventStreams: serve.maxEventStreams,
    bodyTimeoutMs: serve.bodyTimeoutMs,
    maxRetainedTurnBytes: serve.maxRetainedTurnBytes,
    // `GET /v1/tools`: composed as the turns compose their tools, over the open MCP connections.
    toolManifest: async (agentId) => {
      const agent = resolveAgent(config, agentId);
      const skills = await readSkillManifest(config, agent);
      const manifest = buildToolManifest({ config, agent, mcp, toolSearch: toolSearchMode(config, model) });
      return skills === undefined ? manifest : { ...manifest, skills };
    },
    // Each agent's approval policy (`approvals`, `agents.<name>.approvals`) for every turn it runs here.
    approvals: {
      policy: (agentId) => approvalPolicyOf(config, agentId),
      // A held write_file's approval shows the file it replaces, so the console can diff it.
      ...(config.categories.computer === undefined
        ? {}
        : { fileBefore: fileBeforeWriteOf((agentId) => resolveAgent(config, agentId).home) }),
    },
    // Each agent's token budgets and turns at once (`budgets`, `agents.<name>.budgets`), fleet-wide.
    budgets: { of: (agentId) => budgetsOf(config, agentId) },
    version: VERSION,
    graceMs: options.graceMs ?? serve.graceMs,
    heartbeatMs: serve.heartbeatMs,
    staleTurnMs: serve.staleTurnMs,
    resumeApiTurns: serve.resumeApiTurns,
    journal: serve.journal,
    scheduler: { intervalMs: options.tickMs ?? serve.tickMs },
    // Workflow tasks and background jobs, with the task-turn tool list: the enabled web tools and,
    // with the Brain enabled, its read-only tools.
    sources: [
      workTurnSource(controlPlane, agents, {
        ...(webTools === undefined ? {} : { webTools }),
        ...(brainTools === undefined ? {} : { brainTools }),
      }),
    ],
    maxIterations: config.limits.maxIterations,
    turnTimeoutMs: config.limits.turnTimeoutMs,
    ...(config.limits.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: config.limits.toolTimeoutMs }),
    maxParallelCalls: config.limits.maxParallelCalls,
    toolSearch: toolSearchMode(config, model),
    // A home removed while the daemon runs is made again before the agent's next turn.
    beforeTurn: ({ agentId }) => prepareAgentHome(resolveAgent(config, agentId)),
    // The daemon's text turns are composed exactly as `switchyard run` composes them.
    tools: ({ agentId, signal, turnId }) =>
      buildTextTurnTools({
        config,
        agent: resolveAgent(config, agentId),
        signal,
        services: {
          schedules: controlPlane.schedules,
          // The work a turn's tool starts names that turn as its parent.
          ...tracedWorkServices(controlPlane, { parentTurnId: turnId }),
          brain: controlPlane.brain,
          ...(mcp === undefined ? {} : { mcp }),
        },
        todos: { items: [] },
        environment: options.environment,
      }),
    instructions: async ({ agentId }) => {
      const built = await buildTextTurnInstructions({ config, agent: resolveAgent(config, agentId) });
      logSkillProblems(agentId, built.skillProblems);
      return built.instructions;
    },
    commandSandbox: sandboxWatch.report,
    ...(options.scriptedModel === true ? { scriptedModel: SCRIPTED_MODEL_SUMMARY } : {}),
    log: print,
  };
}

/** What was opened, closed in the reverse order: the last to open is the first to close. */
class OpenedInOrder {
  readonly #closers: Array<() => unknown> = [];

  /** Closes `close` after everything opened later. */
  add(close: () => unknown): void {
    this.#closers.push(close);
  }

  /** Closes everything, the last opened first (each awaited before the next). */
  async closeAll(): Promise<void> {
    for (let close = this.#closers.pop(); close !== undefined; close = this.#closers.pop()) await close();
  }
}

/**
 * `switchyard serve`: opens the control plane, starts the daemon for the agents (their homes created
 * first, as `run` creates them) and runs until `stopRequested` resolves, then drains (running turns
 * finish within the grace period or are cancelled and handed back to their queue) and resolves with
 * exit code 0.
 *
 * Contract: throws `WorkerConfigError` naming the flag, variable or field for bad input before
 * anything is opened: no model endpoint (`OPENAI_API_KEY`, `SWITCHYARD_MODEL`, both when both are
 * missing), a non-loopback host without a token (`serve.token`), no token while an agent's commands
 * could reach the loopback API (network `host`, or no sandbox: `serve.token`), a bad flag value, a
 * category that refuses its options (`categories.computer.env[0]`). Warns at start-up when the
 * worker runs as root.
 */
export async function runServeCommand(
  options: ServeCommandOptions,
  print: (line: string) => void,
): Promise<number> {
  const scripted = options.scriptedModel === true ? await startScriptedModel() : undefined;
  try {
    return await serveOn(
      scripted === undefined ? options : { ...options, config: scripted.configure(options.config) },
      scripted,
      print,
    );
  } finally {
    // After the daemon has drained: its last turns may still ask the scripted model.
    await scripted?.close();
  }
}

/** `runServeCommand` once the model is known (`scripted`: the built-in scripted model, running). */
async function serveOn(
  options: ServeCommandOptions,
  scripted: ScriptedModel | undefined,
  print: (line: string) => void,
): Promise<number> {
  if (scripted !== undefined) print(`switchyard serve: model: ${SCRIPTED_MODEL_SUMMARY}`);
  const plan = await prepareServe(options, print);
  // Closed in reverse at the end: the telemetry last, so the spans of the turns that drained are
  // exported before the process exits.
  const opened = new OpenedInOrder();
  try {
    // Before anything that makes spans: the SDK (only loaded when OTEL_* ask for it) must be the global
    // provider when the first turn starts.
    const telemetry = await startWorkerTelemetry(options.environment);
    if (telemetry !== undefined) {
      print(`switchyard serve: OpenTelemetry export to ${telemetry.endpoint}`);
      opened.add(() => telemetry.shutdown());
    }
    // After the daemon has drained (closed before it in reverse): its last turns may still ask it.
    opened.add(() => plan.model.close());
    const controlPlane = await openServeControlPlane(options, print);
    opened.add(() => controlPlane.close());
    // Queue depth and job age, only when an SDK collects them (a no-op meter never calls back).
    if (telemetry !== undefined) opened.add(observeQueues(controlPlane));
    const sandboxWatch = watchCommandSandbox(plan.config, plan.agents, plan.sandboxes, print);
    opened.add(() => sandboxWatch.stop());
    const mcp = await connectServeMcp(plan.config);
    if (mcp !== undefined) opened.add(() => mcp.close());
    for (const line of mcpSkippedToolLines(mcp, 'switchyard serve')) print(line);
    const { dataDir } = plan.config.database;
    let forgetRunningDaemon: (() => Promise<void>) | undefined;
    const daemon = await startDaemon({
      ...daemonOptionsOf(options, plan, controlPlane, mcp, sandboxWatch, print),
      // The CLI in the same folder reaches the embedded database through this daemon's API: the file
      // saying so is written before the log says the daemon listens, so a command run then finds it.
      ...(plan.config.database.url === undefined
        ? {
            beforeReady: async (url: string) => {
              forgetRunningDaemon = await recordRunningDaemon(dataDir, url);
            },
          }
        : {}),
    });
    opened.add(() => daemon.stop());
    // Removed first at the end, so no command is sent to a daemon that is stopping.
    if (forgetRunningDaemon !== undefined) opened.add(forgetRunningDaemon);
  } catch (error) {
    await opened.closeAll();
    throw error;
  }
  const signal = await options.stopRequested;
  print(`switchyard serve: ${signal} received`);
  await opened.closeAll();
  return 0;
}
