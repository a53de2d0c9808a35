import type { ComputerToolsContext } from '../computer-tools-context';
import { probeBubblewrap } from './bubblewrap';
import { pidsCgroupParent } from './process-cgroup';
import { normalizeSandboxOptions, type SandboxStatus, sandboxStatus } from './resolve-sandbox';

/**
 * Whether `run_command` will sandbox commands with these options, probed without blocking (start
 * a worker with it: it warms the cache `createComputerTools` reads, and says why a sandbox is
 * missing). Probing starts one empty sandbox; a working answer is kept for the process, a failed
 * one is asked again after a wait (1 s, doubling up to 5 min), so calling this again later (a
 * health check) says when the sandbox became available.
 *
 * Contract: throws `ComputerToolsConfigError` naming the field for bad options; never throws for an
 * unavailable sandbox (even in mode `required`): `active` is false and `reason` says why. When
 * active, `processLimit` says how the kernel holds commands to `limits.maxProcesses`.
 *
 * @example
 * const status = await checkSandbox({ mode: 'auto', network: 'none' });
 * if (!status.active) console.warn(`commands run without a sandbox: ${status.reason}`);
 */
export async function checkSandbox(sandbox?: ComputerToolsContext['sandbox']): Promise<SandboxStatus> {
  const options = normalizeSandboxOptions(sandbox);
  const probe =
    options.mode === 'off' ? undefined : await probeBubblewrap(options.bwrapPath, options.network);
  const status = sandboxStatus(options, probe);
  if (!status.active) return status;
  if (process.getuid?.() !== 0) return { ...status, processLimit: 'rlimit' };
  return { ...status, processLimit: (await pidsCgroupParent()) === undefined ? 'watched' : 'cgroup' };
}
