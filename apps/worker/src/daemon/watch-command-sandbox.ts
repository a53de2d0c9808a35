import { checkSandbox, type SandboxStatus } from '@switchyard/tools-computer';
import { type CommandSandboxReport, commandSandbox, sandboxReport } from '../config/command-sandbox';
import type { WorkerConfig } from '../config/worker-config';

/** How often the agents' sandboxes are checked again, in ms. */
const RECHECK_MS = 30_000;

/** The sandbox state a running `serve` reports, kept current. */
export interface CommandSandboxWatch {
  /** The latest report (`/healthz`, the console). */
  report(): CommandSandboxReport;
  /** Stops checking. */
  stop(): void;
}

/**
 * Keeps the sandbox state of the agents `serve` runs current: starts from the start-up check's
 * statuses and checks again every 30 s (`checkSandbox` answers from its cache, and probes again only
 * when a failed probe's retry time has come), logging each change, so `/healthz` and the console
 * say when commands stop or start being sandboxed.
 */
export function watchCommandSandbox(
  config: WorkerConfig,
  agents: readonly string[],
  initial: readonly SandboxStatus[] | undefined,
  log: (line: string) => void,
): CommandSandboxWatch {
  let current = sandboxReport(initial);
  let checking = false;
  const check = async () => {
    const statuses: SandboxStatus[] = [];
    for (const agent of agents) {
      const sandbox = commandSandbox(config, agent);
      if (sandbox !== undefined) statuses.push(await checkSandbox(sandbox));
    }
    const next = sandboxReport(config.categories.computer === undefined ? undefined : statuses);
    if (next.state !== current.state) log(`switchyard serve: sandbox: ${next.summary}`);
    current = next;
  };
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    check()
      .catch((error: unknown) => log(`switchyard serve: could not check the sandbox: ${String(error)}`))
      .finally(() => {
        checking = false;
      });
  }, RECHECK_MS);
  timer.unref();
  return {
    report: () => current,
    stop: () => clearInterval(timer),
  };
}
