import { parseArgs } from 'node:util';
import { openControlPlane } from '@switchyard/control-plane';
import { createResponsesModel } from '@switchyard/core';
import { createScheduleTools } from '@switchyard/tools-schedule';
import OpenAI from 'openai';
import { startDaemon } from './start-daemon';

/** Usage of `switchyard serve`. */
export const SERVE_USAGE = `usage: switchyard serve [--agent NAME]... [--host ADDRESS] [--port PORT] [--data-dir DIR]
                        [--grace-ms MS] [--tick-ms MS] [--poll-seconds S]
environment: OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL, DATABASE_URL, SWITCHYARD_SERVE_TOKEN`;

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`--${name}: expected a number, got '${value}'`);
  return parsed;
}

/**
 * `switchyard serve`: opens the control plane, starts the daemon and runs until SIGTERM or SIGINT,
 * then drains (running turns finish within the grace period or are cancelled and handed back to
 * their queue) and resolves with exit code 0.
 *
 * Contract: rejects naming the flag, variable or field for bad input: no model endpoint
 * (`OPENAI_API_KEY` / `OPENAI_BASE_URL`), a non-loopback `--host` without `SWITCHYARD_SERVE_TOKEN`
 * (`serve.token`), a bad number.
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
      'data-dir': { type: 'string' },
      'grace-ms': { type: 'string' },
      'tick-ms': { type: 'string' },
      'poll-seconds': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const apiKey = environment.OPENAI_API_KEY;
  const baseURL = environment.OPENAI_BASE_URL;
  if (!apiKey && !baseURL) {
    throw new Error(
      'no model endpoint configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server)',
    );
  }
  const token = environment.SWITCHYARD_SERVE_TOKEN || undefined;
  const agents = values.agent ?? ['default'];
  const pollingIntervalSeconds = numberFlag('poll-seconds', values['poll-seconds']);
  const tickMs = numberFlag('tick-ms', values['tick-ms']);

  const controlPlane = await openControlPlane({
    environment,
    ...(values['data-dir'] === undefined ? {} : { dataDir: values['data-dir'] }),
    ...(pollingIntervalSeconds === undefined ? {} : { turnRequests: { pollingIntervalSeconds } }),
    onError: (error) => print(`switchyard serve: control plane: ${String(error)}`),
  });
  const model = createResponsesModel({
    client: new OpenAI({ apiKey: apiKey || 'unused', ...(baseURL ? { baseURL } : {}), maxRetries: 2 }),
    model: environment.SWITCHYARD_MODEL || 'gpt-5.4-mini',
  });
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      controlPlane,
      model,
      agents,
      host: values.host ?? '127.0.0.1',
      port: numberFlag('port', values.port) ?? 8787,
      ...(token === undefined ? {} : { token }),
      ...(values['grace-ms'] === undefined ? {} : { graceMs: numberFlag('grace-ms', values['grace-ms']) }),
      scheduler: { ...(tickMs === undefined ? {} : { intervalMs: tickMs }) },
      tools: ({ agentId }) => createScheduleTools({ scheduleService: controlPlane.schedules, agentId }),
      log: print,
    });
  } catch (error) {
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
  await controlPlane.close();
  return 0;
}
