import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { SandboxNetwork } from '../computer-tools-context';

/** What probing bubblewrap found: whether it can start a sandbox here, and how. */
export interface BubblewrapProbe {
  /** A sandbox started (and ended) with the arguments commands will use. */
  readonly ok: boolean;
  /** The binary, when one was found. */
  readonly bwrapPath?: string;
  /** `bubblewrap 0.8.0`, when the binary answered `--version`. */
  readonly version?: string;
  /** Why no sandbox can be started, when `ok` is false. */
  readonly reason?: string;
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

/** The sandbox's init reports to the worker on this file descriptor (see `INIT_SCRIPT`). */
export const REPORT_FD = 3;
/** bubblewrap writes `{"child-pid": N}` here: the sandbox's init, as the worker's PID namespace numbers it. */
export const INFO_FD = 4;

/**
 * PID 1 of the command's PID namespace (POSIX sh, started by bubblewrap with `--as-pid-1`). It runs
 * the command's shell in the foreground (so the command starts with the signal dispositions it
 * would have unconfined) and reports on fd 3, one line each: `exit N` when the shell ends, then
 * `left N` when the shell left N processes running; those get SIGTERM and SIGCONT and `$1` ms to
 * end. When the init exits, the kernel kills whatever is left in the namespace: nothing outlives the
 * command, whatever `setsid`, `nohup`, `env -i` or double forks it used. `/proc` here lists only the
 * namespace's processes, so counting them is a handful of reads, not a scan of the host.
 */
const INIT_SCRIPT = `exec 4>&-
report() { printf '%s\\n' "$1" >&3 2>/dev/null; }
count() {
  n=0
  for d in /proc/[0-9]*; do
    [ "$d" = /proc/1 ] && continue
    s=
    { IFS= read -r s < "$d/stat"; } 2>/dev/null
    s=\${s##*) }
    case $s in ''|Z*|X*) ;; *) n=$((n + 1)) ;; esac
  done
}
bash -lc "$2" </dev/null 3>&-
status=$?
report "exit $status"
count
if [ "$n" -gt 0 ]; then
  report "left $n"
  kill -TERM -1 2>/dev/null
  kill -CONT -1 2>/dev/null
  waited=0
  while [ "$waited" -lt "$1" ]; do
    sleep 0.05
    waited=$((waited + 50))
    count
    if [ "$n" -eq 0 ]; then break; fi
  done
fi
exit "$status"
`;

const probes = new Map<string, BubblewrapProbe>();
const pendingProbes = new Map<string, Promise<BubblewrapProbe>>();

/** The first executable `bwrap` on `searchPath`. */
export function findBubblewrap(searchPath: string | undefined): string | undefined {
  for (const directory of (searchPath ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (!path.isAbsolute(directory)) continue;
    const candidate = path.join(directory, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

const foundOnPath = new Map<string | undefined, string>();

/**
 * `findBubblewrap` on this process's `PATH`, remembered per `PATH` once found: the probe of what it
 * finds is kept for the process anyway, and the search costs a blocking `access` per folder on
 * every turn that composes the command tool. Not finding it is not remembered, so a bubblewrap
 * installed later is found on the next turn.
 */
function findBubblewrapOnPath(): string | undefined {
  const searchPath = process.env.PATH;
  const known = foundOnPath.get(searchPath);
  if (known !== undefined) return known;
  const found = findBubblewrap(searchPath);
  if (found !== undefined) foundOnPath.set(searchPath, found);
  return found;
}

function parseVersion(output: string): { text: string; atLeast: (major: number, minor: number) => boolean } {
  const match = /bubblewrap (\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  return {
    text: match?.[0] ?? output.trim().split('\n')[0] ?? '',
    atLeast: (wantMajor, wantMinor) => major > wantMajor || (major === wantMajor && minor >= wantMinor),
  };
}

interface NamespaceOptions {
  network: SandboxNetwork;
  userNamespace: boolean;
  disableUserNamespaces: boolean;
}

function namespaceArguments(options: NamespaceOptions): string[] {
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

const BASE_MOUNTS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  // Sysctls check the uid, not a capability: a root worker's command could otherwise rewrite
  // kernel.core_pattern (a program the host runs as root) through the new procfs.
  '--ro-bind',
  '/proc/sys',
  '/proc/sys',
  '--tmpfs',
  '/tmp',
];

function probeArguments(options: NamespaceOptions): string[] {
  return [
    ...BASE_MOUNTS,
    ...namespaceArguments(options),
    '--as-pid-1',
    '--chdir',
    '/',
    '--',
    'sh',
    '-c',
    ':',
  ];
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

interface RunResult {
  status: number | null;
  output: string;
}

const PROBE_ENVIRONMENT = { PATH: '/usr/local/bin:/usr/bin:/bin' };

function runAsync(file: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      env: PROBE_ENVIRONMENT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    let output = '';
    const append = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    child.once('error', (error) => resolve({ status: null, output: error.message }));
    child.once('close', (status) => resolve({ status, output }));
  });
}

function runSync(file: string, args: string[]): RunResult {
  const result = spawnSync(file, args, {
    env: PROBE_ENVIRONMENT,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
    encoding: 'utf8',
  });
  return {
    status: result.status,
    output: result.error !== undefined ? result.error.message : `${result.stdout}${result.stderr}`,
  };
}

/**
 * The probe as a sequence of commands to run (yielded) and their results (sent back), so one
 * logic serves the asynchronous and the synchronous caller.
 */
function* probeSteps(
  bwrapPath: string,
  network: SandboxNetwork,
): Generator<[string, string[]], BubblewrapProbe, RunResult> {
  const versionRun = yield [bwrapPath, ['--version']];
  if (versionRun.status !== 0) {
    return unavailable(
      `${bwrapPath} --version failed: ${firstLine(versionRun.output) || `exit ${versionRun.status}`}`,
      bwrapPath,
    );
  }
  const version = parseVersion(versionRun.output);
  if (!version.atLeast(0, 4)) {
    return {
      ...unavailable(`${version.text} is too old: 0.4.0 or later is needed`, bwrapPath),
      version: version.text,
    };
  }
  const disableUserNamespaces = version.atLeast(0, 8);
  const variants: NamespaceOptions[] = [{ network, userNamespace: true, disableUserNamespaces }];
  // Only a privileged bubblewrap can do without a user namespace (a root worker on a kernel or in a
  // container that refuses them); it still drops every capability.
  if (process.getuid?.() === 0) variants.push({ network, userNamespace: false, disableUserNamespaces });
  let reason = '';
  for (const variant of variants) {
    const attempt = yield [bwrapPath, probeArguments(variant)];
    if (attempt.status === 0) {
      return {
        ok: true,
        bwrapPath,
        version: version.text,
        userNamespace: variant.userNamespace,
        disableUserNamespaces,
      };
    }
    reason ||= firstLine(attempt.output) || `exit ${attempt.status}`;
  }
  return {
    ...unavailable(`${bwrapPath} cannot start a sandbox here: ${reason}`, bwrapPath),
    version: version.text,
  };
}

function unavailable(reason: string, bwrapPath?: string): BubblewrapProbe {
  return {
    ok: false,
    reason,
    userNamespace: false,
    disableUserNamespaces: false,
    ...(bwrapPath === undefined ? {} : { bwrapPath }),
  };
}

function locate(bwrapPath: string | undefined): BubblewrapProbe | string {
  if (process.platform !== 'linux') {
    return unavailable(`the bubblewrap sandbox needs Linux; this is ${process.platform}`);
  }
  const found = bwrapPath ?? findBubblewrapOnPath();
  if (found === undefined) {
    return unavailable('bwrap (bubblewrap) is not installed: no bwrap on PATH');
  }
  return found;
}

/**
 * Whether bubblewrap can sandbox commands here with this network setting: finds the binary, asks
 * its version and starts one empty sandbox (in a user namespace; a root worker may also do without
 * one). The answer is cached for the process.
 */
export function probeBubblewrap(
  bwrapPath: string | undefined,
  network: SandboxNetwork,
): Promise<BubblewrapProbe> {
  const located = locate(bwrapPath);
  if (typeof located !== 'string') return Promise.resolve(located);
  const key = `${located}\0${network}`;
  const known = probes.get(key);
  if (known !== undefined) return Promise.resolve(known);
  let pending = pendingProbes.get(key);
  if (pending === undefined) {
    pending = (async () => {
      const steps = probeSteps(located, network);
      let step = steps.next();
      while (!step.done) step = steps.next(await runAsync(...step.value));
      probes.set(key, step.value);
      pendingProbes.delete(key);
      return step.value;
    })();
    pendingProbes.set(key, pending);
  }
  return pending;
}

/**
 * `probeBubblewrap` for synchronous callers (`createComputerTools`): the cached answer, or one probe
 * with blocking child processes (tens of milliseconds, once per process and network setting; call
 * `checkSandbox` at start-up to probe asynchronously instead).
 */
export function probeBubblewrapSync(bwrapPath: string | undefined, network: SandboxNetwork): BubblewrapProbe {
  const located = locate(bwrapPath);
  if (typeof located !== 'string') return located;
  const key = `${located}\0${network}`;
  const known = probes.get(key);
  if (known !== undefined) return known;
  const steps = probeSteps(located, network);
  let step = steps.next();
  while (!step.done) step = steps.next(runSync(...step.value));
  probes.set(key, step.value);
  return step.value;
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

function hideArguments(entries: readonly HiddenEntry[]): string[] {
  // An empty folder over a folder; over anything else, /dev/null (read as an empty file).
  return entries.flatMap((entry) =>
    entry.directory ? ['--tmpfs', entry.path] : ['--ro-bind', '/dev/null', entry.path],
  );
}

/**
 * Credential files and folders in the worker user's own home directory: hidden from sandboxed
 * commands as well (`ssh` and `git` find `~/.ssh` through the user's passwd entry, whatever `HOME`
 * says). An agent that needs credentials gets them in its own home.
 */
export const WORKER_CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
];

/** `WORKER_CREDENTIAL_PATHS` under the worker user's home, leaving out any inside the agent home. */
export function workerCredentialPaths(agentHome: string): string[] {
  let userHome: string;
  try {
    userHome = homedir();
  } catch {
    return [];
  }
  return WORKER_CREDENTIAL_PATHS.map((entry) => path.join(userHome, entry)).filter(
    (entry) => !isWithin(agentHome, entry),
  );
}

/** Where one command's sandbox puts things, and what it runs. */
export interface SandboxCommandLayout {
  /** The agent home's real path: the one writable place (besides a private /tmp). */
  home: string;
  /** Paths to hide, as configured (resolved to real paths when the command starts). */
  hiddenPaths: readonly string[];
  /** Folders on the command's PATH: kept visible (read-only) even under /tmp or a hidden path. */
  exposedPaths: readonly string[];
  /** The sandbox's network. */
  network: SandboxNetwork;
  /** How long leftover processes get after SIGTERM, in ms (the init's own grace). */
  graceMs: number;
  /** The shell script run with `bash -lc`. */
  script: string;
}

/**
 * bubblewrap's arguments for one command: the host read-only, a new /dev, /proc (its sysctls
 * read-only) and /tmp; the hidden paths covered; the home bound writable; every namespace new but
 * the network's when `host`; no capability; the init script as PID 1.
 *
 * Mount order matters: paths that contain the home are hidden before the home is bound over them,
 * paths inside the home after it, and the PATH's folders are bound back last.
 */
export async function bubblewrapCommandArguments(
  probeResult: BubblewrapProbe,
  layout: SandboxCommandLayout,
): Promise<string[]> {
  const found = (await Promise.all(layout.hiddenPaths.map(findHidden))).filter(
    (entry): entry is HiddenEntry => entry !== undefined,
  );
  const isInsideHome = (entry: HiddenEntry) =>
    entry.path !== layout.home && isWithin(layout.home, entry.path);
  const insideHome = outermost(found.filter(isInsideHome));
  // The private /tmp already hides everything under the host's /tmp.
  const beforeHome = outermost(found.filter((entry) => !isInsideHome(entry))).filter(
    (entry) => !isWithin('/tmp', entry.path),
  );
  const covered = [...beforeHome, ...insideHome, { path: '/tmp', directory: true }];
  const exposed = [...new Set(layout.exposedPaths)].filter((directory) => {
    if (!path.isAbsolute(directory)) return false;
    if (isWithin(layout.home, directory)) return insideHome.some((entry) => isWithin(entry.path, directory));
    return covered.some((entry) => isWithin(entry.path, directory));
  });
  return [
    ...BASE_MOUNTS,
    ...hideArguments(beforeHome),
    '--bind',
    layout.home,
    layout.home,
    ...hideArguments(insideHome),
    ...exposed.flatMap((directory) => ['--ro-bind-try', directory, directory]),
    ...namespaceArguments({
      network: layout.network,
      userNamespace: probeResult.userNamespace,
      disableUserNamespaces: probeResult.disableUserNamespaces,
    }),
    '--as-pid-1',
    '--info-fd',
    String(INFO_FD),
    '--chdir',
    layout.home,
    '--',
    'sh',
    '-c',
    INIT_SCRIPT,
    'switchyard-sandbox-init',
    String(layout.graceMs),
    layout.script,
  ];
}
