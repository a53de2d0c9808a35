import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { SandboxNetwork } from '../computer-tools-context';
import { type NamespaceOptions, probeArguments } from './sandbox-arguments';
import { privilegeBitFilter } from './seccomp-filter';

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

/** The namespace options a working probe found. */
export function namespacesOf(probe: BubblewrapProbe, network: SandboxNetwork): NamespaceOptions {
  return {
    network,
    userNamespace: probe.userNamespace,
    disableUserNamespaces: probe.disableUserNamespaces,
  };
}

/** After the first failed probe, the next waits this long; each further failure doubles it. */
const FIRST_RETRY_MS = 1_000;
/** The longest wait between two probes after failures. */
const LONGEST_RETRY_MS = 5 * 60_000;

/** A probe's answer, when it was given, and when a failed one may be asked again. */
interface ProbeEntry {
  readonly probe: BubblewrapProbe;
  /** Failed probes in a row (0 for a working one). */
  readonly failures: number;
  /** When a failed probe may run again (`performance.now()` time). */
  readonly retryAt: number;
}

const probes = new Map<string, ProbeEntry>();
const pendingProbes = new Map<string, Promise<BubblewrapProbe>>();

function remember(key: string, probe: BubblewrapProbe): BubblewrapProbe {
  const failures = probe.ok ? 0 : (probes.get(key)?.failures ?? 0) + 1;
  const wait = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), LONGEST_RETRY_MS);
  probes.set(key, { probe, failures, retryAt: performance.now() + wait });
  return probe;
}

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
 * `findBubblewrap` on this process's `PATH`, remembered per `PATH` once found: the search costs a
 * blocking `access` per folder on every turn that composes the command tool. Not finding it is not
 * remembered, so a bubblewrap installed later is found on the next turn.
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

/** A step of the probe: a command to run, with what to give it on standard input. */
type ProbeStep = readonly [file: string, args: string[], input: Buffer | undefined];

const PROBE_ENVIRONMENT = { PATH: '/usr/local/bin:/usr/bin:/bin' };

function runAsync(file: string, args: string[], input: Buffer | undefined): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      env: PROBE_ENVIRONMENT,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    let output = '';
    const append = (chunk: Buffer) => {
      if (output.length < 64 * 1024) output += chunk.toString();
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    child.once('error', (error) => resolve({ status: null, output: error.message }));
    child.once('close', (status) => resolve({ status, output }));
  });
}

function runSync(file: string, args: string[], input: Buffer | undefined): RunResult {
  const result = spawnSync(file, args, {
    env: PROBE_ENVIRONMENT,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(input === undefined ? {} : { input }),
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
): Generator<ProbeStep, BubblewrapProbe, RunResult> {
  const filter = privilegeBitFilter();
  if (filter === undefined) {
    return unavailable(
      `the sandbox's seccomp filter has no system call table for ${process.arch}: only x64 and arm64 are supported`,
      bwrapPath,
    );
  }
  const versionRun = yield [bwrapPath, ['--version'], undefined];
  if (versionRun.status !== 0) {
    return unavailable(
      `${bwrapPath} --version failed: ${firstLine(versionRun.output) || `exit ${versionRun.status}`}`,
      bwrapPath,
    );
  }
  const version = parseVersion(versionRun.output);
  if (!version.atLeast(0, 5)) {
    return {
      ...unavailable(`${version.text} is too old: 0.5.0 or later is needed (for --size)`, bwrapPath),
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
    const attempt = yield [bwrapPath, probeArguments(variant), filter];
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

async function probeNow(key: string, bwrapPath: string, network: SandboxNetwork): Promise<BubblewrapProbe> {
  let pending = pendingProbes.get(key);
  if (pending === undefined) {
    pending = (async () => {
      try {
        const steps = probeSteps(bwrapPath, network);
        let step = steps.next();
        while (!step.done) step = steps.next(await runAsync(...step.value));
        return remember(key, step.value);
      } finally {
        pendingProbes.delete(key);
      }
    })();
    pendingProbes.set(key, pending);
  }
  return pending;
}

/**
 * Whether bubblewrap can sandbox commands here with this network setting: finds the binary, asks
 * its version and starts one empty sandbox with the arguments commands get (in a user namespace; a
 * root worker may also do without one). A working answer is kept for the process; a failed one is
 * asked again once its retry time has come (1 s after the first failure, doubling up to 5 min), so a
 * sandbox that becomes available is used from then on.
 */
export function probeBubblewrap(
  bwrapPath: string | undefined,
  network: SandboxNetwork,
): Promise<BubblewrapProbe> {
  const located = locate(bwrapPath);
  if (typeof located !== 'string') return Promise.resolve(located);
  const key = `${located}\0${network}`;
  const known = probes.get(key);
  if (known !== undefined && (known.probe.ok || performance.now() < known.retryAt)) {
    return Promise.resolve(known.probe);
  }
  return probeNow(key, located, network);
}

/**
 * `probeBubblewrap` for synchronous callers (`createComputerTools`): the answer known (a failed one
 * whose retry time has come is asked again in the background, for the next caller), or one probe
 * with blocking child processes the first time (tens of milliseconds, once per process and network
 * setting; call `checkSandbox` at start-up to probe asynchronously instead).
 */
export function probeBubblewrapSync(bwrapPath: string | undefined, network: SandboxNetwork): BubblewrapProbe {
  const located = locate(bwrapPath);
  if (typeof located !== 'string') return located;
  const key = `${located}\0${network}`;
  const known = probes.get(key);
  if (known !== undefined) {
    if (!known.probe.ok && performance.now() >= known.retryAt) {
      void probeNow(key, located, network).catch(() => undefined);
    }
    return known.probe;
  }
  const steps = probeSteps(located, network);
  let step = steps.next();
  while (!step.done) step = steps.next(runSync(...step.value));
  return remember(key, step.value);
}

/**
 * Marks a working sandbox as failed: a sandboxed command could not start one. The next probe (after
 * the retry wait) says whether it works again; until then tools created in mode `auto` run commands
 * unconfined and say so.
 */
export function forgetWorkingProbe(bwrapPath: string, network: SandboxNetwork, reason: string): void {
  const key = `${bwrapPath}\0${network}`;
  const known = probes.get(key);
  if (known?.probe.ok !== true) return;
  remember(key, {
    ...unavailable(`${bwrapPath} could not start a sandbox for a command: ${reason}`, bwrapPath),
    ...(known.probe.version === undefined ? {} : { version: known.probe.version }),
  });
}
