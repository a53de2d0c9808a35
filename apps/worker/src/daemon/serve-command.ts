import { parseArgs } from 'node:util';
import { openControlPlane } from '@switchyard/control-plane';
import { createResponsesModel } from '@switchyard/core';
import { connectMcpServers, type McpServers } from '@switchyard/tools-mcp';
import OpenAI from 'openai';
import { loadConfig, resolveAgent, resolveModelEndpoint, type WorkerConfig } from '../config';
import { buildTextTurnInstructions, buildTextTurnTools } from '../text-turn';
import { checkTokenForHost, startDaemon } from './start-daemon';
import { workTurnSource } from './work-source';

/** Usage of `switchyard serve`. */
export const SERVE_USAGE = `usage: switchyard serve [--agent NAME]... [--host ADDRESS] [--port PORT] [--grace-ms MS]
                        [--tick-ms MS] [--poll-seconds S] [--config FILE]
flags override the "serve" section of switchyard.config.json
environment: OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL, DATABASE_URL, SWITCHYARD_SERVE_TOKEN`;

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) {
    throw new Error(`--${name}: expected a number, got '${value}'`);
  }
  return parsed;
}

function createModel(config: WorkerConfig) {
  const endpoint = resolveModelEndpoint(config);
  const { model } = config;
  return createResponsesModel({
    client: new OpenAI({
      apiKey: endpoint.apiKey,
      maxRetries: model.maxRetries,
      ...(endpoint.baseURL === undefined ? {} : { baseURL: endpoint.baseURL }),
    }),
    model: endpoint.model,
    chaining: model.chaining,
    stream: model.stream,
    ...(model.reasoningEffort === undefined ? {} : { reasoning: { effort: model.reasoningEffort } }),
    ...(model.maxOutputTokens === undefined ? {} : { max_output_tokens: model.maxOutputTokens }),
  });
}

/**
 * `switchyard serve`: loads the configuration, opens the control plane, starts the daemon and runs
 * until SIGTERM or SIGINT, then drains (running turns finish within the grace period or are
 * cancelled and handed back to their queue) and resolves with exit code 0.
 *
 * Flags override the configuration's `serve` section (host, port, agents, grace, tick, polling).
 *
 * Contract: rejects naming the flag, variable or field for bad input: no model endpoint
 * (`OPENAI_API_KEY`, `SWITCHYARD_MODEL`), a non-loopback host without a token (`serve.token`, naming
 * `SWITCHYARD_SERVE_TOKEN` or the variable of `serve.tokenEnv`), a bad number, a bad configuration file.
 */
export async function runServeCommand(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv,
  print: (line: string) => void,
): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      agent: { type: 'string', multiple: true },
      host: { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      'grace-ms': { type: 'string' },
      'tick-ms': { type: 'string' },
      'poll-seconds': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const config = await loadConfig({
    env: environment,
    ...(values.config === undefined ? {} : { path: values.config }),
  });
  const model = createModel(config);
  const { serve } = config;
  const agents = values.agent ?? serve.agents ?? [config.agent];
  for (const agent of agents) resolveAgent(config, agent);
  const token = serve.token;
  const pollingIntervalSeconds = numberFlag('poll-seconds', values['poll-seconds']) ?? serve.pollSeconds;
  const tickMs = numberFlag('tick-ms', values['tick-ms']) ?? serve.tickMs;
  const graceMs = numberFlag('grace-ms', values['grace-ms']) ?? serve.graceMs;
  const port = numberFlag('port', values.port) ?? serve.port;
  const host = values.host ?? serve.host;
  // Refused before anything is opened.
  checkTokenForHost(host, token, serve.tokenVariable);
  const delivery = {
    expireInSeconds: serve.expireSeconds,
    retryLimit: serve.retryLimit,
    retryDelaySeconds: serve.retryDelaySeconds,
    retryBackoff: serve.retryBackoff,
  };

  const controlPlane = await openControlPlane({
    environment: {},
    ...(config.database.url === undefined
      ? { dataDir: config.database.dataDir }
      : { databaseUrl: config.database.url }),
    // One delivery policy for both queues: expiry (the safety net, past the turn limit), retries and
    // their delay; a unit whose process died is handed back by the sweep of interrupted turns.
    turnRequests: { pollingIntervalSeconds, ...delivery },
    workTurns: { pollingIntervalSeconds, ...delivery },
    onError: (error) => print(`switchyard serve: control plane: ${String(error)}`),
  });
  let mcp: McpServers | undefined;
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    const mcpServers = config.categories.mcp?.servers;
    if (mcpServers !== undefined) mcp = await connectMcpServers({ servers: mcpServers });
    daemon = await startDaemon({
      controlPlane,
      model,
      agents,
      host,
      port,
      ...(token === undefined ? {} : { token }),
      graceMs,
      heartbeatMs: serve.heartbeatMs,
      staleTurnMs: serve.staleTurnMs,
      scheduler: { intervalMs: tickMs },
      // Workflow tasks and background jobs, with the task-turn tool list.
      sources: [workTurnSource(controlPlane, agents)],
      maxIterations: config.limits.maxIterations,
      turnTimeoutMs: config.limits.turnTimeoutMs,
      ...(config.limits.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: config.limits.toolTimeoutMs }),
      ...(config.model.toolSearch === undefined ? {} : { toolSearch: config.model.toolSearch }),
      // The daemon's text turns are composed exactly as `switchyard run` composes them.
      tools: ({ agentId, signal }) =>
        buildTextTurnTools({
          config,
          agent: resolveAgent(config, agentId),
          services: {
            schedules: controlPlane.schedules,
            workflows: controlPlane.workflows,
            backgroundJobs: controlPlane.backgroundJobs,
            ...(mcp === undefined ? {} : { mcp }),
          },
          todos: { items: [] },
          signal,
          environment,
        }),
      instructions: async ({ agentId }) =>
        (await buildTextTurnInstructions({ config, agent: resolveAgent(config, agentId) })).instructions,
      log: print,
    });
  } catch (error) {
    await mcp?.close();
    await controlPlane.close();
    throw error;
  }
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      print(`switchyard serve: ${signal} received`);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await daemon.stop();
  await mcp?.close();
  await controlPlane.close();
  return 0;
}
