import type { SandboxStatus } from '@switchyard/tools-computer';

/**
 * The start-up warning of a worker running as root (undefined otherwise): its sandboxed commands
 * run as root in their user namespace, without capabilities, and see the same allowlist of the host
 * as an unprivileged worker's; what differs is said, and whether the kernel holds them to the
 * process limit (it does not apply `RLIMIT_NPROC` to root: a `pids` cgroup per command does, where
 * one can be written).
 */
export function rootWarning(statuses: readonly SandboxStatus[] | undefined): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const processes = statuses?.some((status) => status.processLimit === 'watched')
    ? '; no pids cgroup can be written here, so the process limit of commands is only watched (the kernel does not apply RLIMIT_NPROC to root)'
    : '';
  return `switchyard serve: warning: running as root: sandboxed commands run as root without capabilities${processes}, and unsandboxed ones as root itself; run the worker as an unprivileged user`;
}
