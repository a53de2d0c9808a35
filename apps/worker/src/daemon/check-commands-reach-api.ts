import type { SandboxStatus } from '@switchyard/tools-computer';
import { WorkerConfigError } from '../config/worker-config-error';

/** What `checkCommandsReachApi` looks at. */
export interface CommandsReachApiOptions {
  /** The agents `serve` runs, in the order of `statuses`. */
  agents: readonly string[];
  /** Each agent's command sandbox (`checkCommandSandbox`); undefined when the computer category is off. */
  statuses: readonly SandboxStatus[] | undefined;
  /** The API's bearer token, when set. */
  token: string | undefined;
  /** The variable it is read from, for the message. */
  tokenVariable: string;
}

/**
 * Refuses to start a daemon without a bearer token when an agent's commands can reach its API: a
 * sandbox with network `host` shares the worker's loopback, and a command without the sandbox (mode
 * `off`, or `auto` where bubblewrap cannot work) has the worker's network too. Either could call the
 * tokenless API and, for one, allow another agent's call held for approval. With network `none` a
 * command has a loopback of its own, where nothing of the worker listens.
 *
 * Contract: throws `WorkerConfigError` (field `serve.token`) naming the agent, why its commands reach
 * the API, and the two ways out (set the token; network `none` with the sandbox working).
 */
export function checkCommandsReachApi(options: CommandsReachApiOptions): void {
  if (options.token !== undefined || options.statuses === undefined) return;
  options.statuses.forEach((status, index) => {
    const agent = options.agents[index] ?? '?';
    let why: string | undefined;
    if (!status.active) why = `run without the sandbox (${status.reason})`;
    else if (status.network === 'host') why = "run in a sandbox with the worker's network (network 'host')";
    if (why === undefined) return;
    throw new WorkerConfigError({
      issues: [
        {
          field: 'serve.token',
          message: `agent ${agent}'s commands ${why}, so they could reach this daemon's API on its loopback address: set ${options.tokenVariable} (at least 16 characters), or give the agent's commands network 'none' in a sandbox that works here`,
        },
      ],
    });
  });
}
