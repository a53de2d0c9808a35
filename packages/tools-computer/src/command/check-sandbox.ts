import type { ComputerToolsContext } from '../computer-tools-context';
import { probeBubblewrap } from './bubblewrap';
import { normalizeSandboxOptions, type SandboxStatus, sandboxStatus } from './resolve-sandbox';

/**
 * Whether `run_command` will sandbox commands with these options, probed without blocking (start
 * a worker with it: it warms the cache `createComputerTools` reads, and says why a sandbox is
 * missing). Probing starts one empty sandbox; the answer is cached per process.
 *
 * Contract: throws `ComputerToolsConfigError` naming the field for bad options; never throws for an
 * unavailable sandbox (even in mode `required`): `active` is false and `reason` says why.
 *
 * @example
 * const status = await checkSandbox({ mode: 'auto', network: 'none' });
 * if (!status.active) console.warn(`commands run without a sandbox: ${status.reason}`);
 */
export async function checkSandbox(sandbox?: ComputerToolsContext['sandbox']): Promise<SandboxStatus> {
  const options = normalizeSandboxOptions(sandbox);
  const probe =
    options.mode === 'off' ? undefined : await probeBubblewrap(options.bwrapPath, options.network);
  return sandboxStatus(options, probe);
}
