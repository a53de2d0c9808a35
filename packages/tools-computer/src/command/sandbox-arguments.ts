import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxNetwork } from '../computer-tools-context';
import { hostViewArguments, SYSTEM_FOLDERS } from './host-view';
import { INFO_FD, type InitLimits, initEnvironment, SANDBOX_COMMAND, SECCOMP_FD } from './sandbox-init';

/** How bubblewrap starts the sandbox here, as the probe found it. */
export interface NamespaceOptions {
  /** The sandbox's network. */
  readonly network: SandboxNetwork;
  /** Start the sandbox in a user namespace (false only for a root worker whose kernel refuses one). */
  readonly userNamespace: boolean;
  /** This bubblewrap has `--disable-userns` (0.8.0 and later). */
  readonly disableUserNamespaces: boolean;
}

/** A path commands must not see, as found on disk when a command starts. */
interface HiddenEntry {
  readonly path: string;
  readonly directory: boolean;
}

/** The namespaces, capabilities and lifetime options every sandbox gets. */
export function namespaceArguments(options: NamespaceOptions): string[] {
  return [
    ...(options.userNamespace ? ['--unshare-user'] : []),
    ...(options.userNamespace && options.disableUserNamespaces ? ['--disable-userns'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network === 'none' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
    // A root worker's bubblewrap keeps every capability unless told otherwise (checked: CapEff full).
    '--cap-drop',
    'ALL',
  ];
}

/**
 * A new `/dev` (read-only, its device nodes still usable), `/dev/shm` and `/tmp` as tmpfs of
 * `memoryBytes` each, and a new `/proc` whose sysctls are read-only: sysctls check the uid, not a
 * capability, and a root worker's command could otherwise rewrite kernel.core_pattern (a program
 * the host runs as root).
 */
function scratchArguments(memoryBytes: number): string[] {
  const size = String(memoryBytes);
  return [
    '--dev',
    '/dev',
    '--size',
    size,
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--size',
    size,
    '--tmpfs',
    '/tmp',
  ];
}

function isWithin(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root.endsWith('/') ? root : `${root}/`);
}

async function findHidden(configured: string): Promise<HiddenEntry | undefined> {
  try {
    const real = await realpath(configured);
    return { path: real, directory: (await stat(real)).isDirectory() };
  } catch {
    // Missing: nothing to hide (yet).
    return undefined;
  }
}

/** Keeps the outermost of nested paths. */
function outermost(entries: readonly HiddenEntry[]): HiddenEntry[] {
  const kept: HiddenEntry[] = [];
  for (const entry of [...entries].sort((a, b) => a.path.length - b.path.length)) {
    if (!kept.some((outer) => outer.directory && isWithin(outer.path, entry.path))) kept.push(entry);
  }
  return kept;
}

function coverArguments(entries: readonly HiddenEntry[]): string[] {
  // An empty, read-only folder over a folder; over anything else, /dev/null (an empty file).
  return entries.flatMap((entry) =>
    entry.directory
      ? ['--size', '4096', '--tmpfs', entry.path, '--remount-ro', entry.path]
      : ['--ro-bind', '/dev/null', entry.path],
  );
}

/** What one command's sandbox shows, and what it runs. */
export interface SandboxCommandLayout {
  /** The agent home's real path: the one writable place (besides a private /tmp and /dev/shm). */
  readonly home: string;
  /** Paths to hide where they lie inside what is shown (resolved to real paths when the command starts). */
  readonly hiddenPaths: readonly string[];
  /** Folders the command's PATH needs (tool installs, node's folder): shown read-only. */
  readonly exposedPaths: readonly string[];
  /** Configured host paths shown read-only. */
  readonly readOnlyPaths: readonly string[];
  /** How the probe found bubblewrap starts here. */
  readonly namespaces: NamespaceOptions;
  /** How long leftover processes get after SIGTERM, in ms (the init's own grace). */
  readonly graceMs: number;
  /** The shell script run with `bash -lc`. */
  readonly script: string;
  /** The command's environment (bubblewrap itself has none: it is set with `--setenv`). */
  readonly environment: Readonly<Record<string, string>>;
  /** The rlimits, and the size of `/tmp` and `/dev/shm`. */
  readonly limits: InitLimits;
}

/** `--setenv` for each variable, in order. */
function environmentArguments(variables: Iterable<readonly [string, string]>): string[] {
  return [...variables].flatMap(([name, value]) => ['--setenv', name, value]);
}

/**
 * bubblewrap's options for one command (what it reads on `ARGS_FD`; it runs `SANDBOX_COMMAND`): an
 * allowlist of the host, never the host minus a list. Read-only: the system folders and a minimal
 * `/etc` (`hostViewArguments`), the folders the command's PATH needs and `readOnlyPaths`. Writable:
 * the home, and a private `/tmp` and `/dev/shm` of `limits.maxMemoryBytes` each. New `/dev` and
 * `/proc`. The root itself is an empty read-only tmpfs, so nothing else of the host exists inside:
 * no other home, no socket folder (`/run`, `/var/run`), no host mount in `/proc/self/mountinfo`.
 * Every namespace is new but the network's when `host`; no capability; the seccomp filter on fd 5;
 * the init (`SANDBOX_INIT_SCRIPT`) as PID 1, with the command's environment and then the init's
 * own values (`initEnvironment`, its completion mark the very last option).
 *
 * Mount order matters: what is shown, then the home over it, then the hidden paths that lie inside
 * what is shown, then the PATH's folders that lie inside a hidden path again, and last the root
 * made read-only.
 */
export async function sandboxOptions(layout: SandboxCommandLayout): Promise<string[]> {
  const shown = [...new Set([...layout.exposedPaths, ...layout.readOnlyPaths])].filter(
    (entry) =>
      path.isAbsolute(entry) &&
      !isWithin(layout.home, entry) &&
      !SYSTEM_FOLDERS.some((folder) => isWithin(folder, entry)),
  );
  const visible = [layout.home, ...shown, ...SYSTEM_FOLDERS];
  const found = (await Promise.all(layout.hiddenPaths.map(findHidden))).filter(
    (entry): entry is HiddenEntry =>
      entry !== undefined &&
      // The home itself, or a folder holding it, is not shown beyond the home anyway.
      !isWithin(entry.path, layout.home) &&
      visible.some((root) => isWithin(root, entry.path)),
  );
  const covers = outermost(found);
  const exposedAgain = [...new Set(layout.exposedPaths)].filter(
    (entry) => path.isAbsolute(entry) && covers.some((cover) => isWithin(cover.path, entry)),
  );
  return [
    ...hostViewArguments(),
    ...scratchArguments(layout.limits.maxMemoryBytes),
    ...shown.flatMap((entry) => ['--ro-bind-try', entry, entry]),
    '--bind',
    layout.home,
    layout.home,
    ...coverArguments(covers),
    ...exposedAgain.flatMap((entry) => ['--ro-bind-try', entry, entry]),
    '--remount-ro',
    '/',
    ...namespaceArguments(layout.namespaces),
    '--seccomp',
    String(SECCOMP_FD),
    '--as-pid-1',
    '--info-fd',
    String(INFO_FD),
    '--chdir',
    layout.home,
    ...environmentArguments(Object.entries(layout.environment)),
    ...environmentArguments(initEnvironment(layout.graceMs, layout.script, layout.limits)),
  ];
}

/**
 * The probe's command line: the same sandbox without a home, its seccomp filter on standard input,
 * running `true` (its options on the command line, not on a pipe).
 */
export function probeArguments(namespaces: NamespaceOptions): string[] {
  const limits: InitLimits = {
    maxProcesses: 64,
    maxMemoryBytes: 64 * 1024 * 1024,
    maxOpenFiles: 256,
    maxCpuSeconds: 10,
  };
  return [
    ...hostViewArguments(),
    ...scratchArguments(limits.maxMemoryBytes),
    '--remount-ro',
    '/',
    ...namespaceArguments(namespaces),
    '--seccomp',
    '0',
    '--as-pid-1',
    '--chdir',
    '/',
    ...environmentArguments(initEnvironment(0, 'true', limits)),
    ...SANDBOX_COMMAND,
  ];
}
