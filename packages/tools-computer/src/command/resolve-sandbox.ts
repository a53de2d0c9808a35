import path from 'node:path';
import type {
  ComputerSandboxOptions,
  ComputerToolsContext,
  SandboxMode,
  SandboxNetwork,
} from '../computer-tools-context';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { type BubblewrapProbe, probeBubblewrapSync } from './bubblewrap';

/** Whether `run_command` confines commands, and how: what `checkSandbox` answers. */
export interface SandboxStatus {
  /** The configured mode. */
  mode: SandboxMode;
  /** Commands run inside the bubblewrap sandbox. */
  active: boolean;
  /** The network sandboxed commands get (unconfined commands have the worker's). */
  network: SandboxNetwork;
  /** The bubblewrap binary, when one was found. */
  bwrapPath?: string;
  /** bubblewrap's version, e.g. `bubblewrap 0.8.0`, when it answered. */
  version?: string;
  /** Why commands run without the sandbox: the mode is `off`, not Linux, no `bwrap`, or it cannot start one here. */
  reason?: string;
  /** One line for manifests and logs, e.g. `sandboxed (bubblewrap 0.8.0, network none)`. */
  summary: string;
  /**
   * How the kernel holds a sandboxed command to `limits.maxProcesses` (answered by `checkSandbox`):
   * `rlimit` (`RLIMIT_NPROC` in the command's user namespace), `cgroup` (a root worker's `pids`
   * cgroup per command), or `watched` (a root worker that can write no `pids` cgroup: the kernel
   * does not apply `RLIMIT_NPROC` to root, so the limit is only watched, every 200 ms).
   */
  processLimit?: 'rlimit' | 'cgroup' | 'watched';
}

/** Checked sandbox options. */
export interface SandboxOptions {
  /** When to sandbox. */
  readonly mode: SandboxMode;
  /** The sandbox's network. */
  readonly network: SandboxNetwork;
  /** Absolute paths commands must not see. */
  readonly hiddenPaths: readonly string[];
  /** Absolute host paths commands may read besides the system folders. */
  readonly readOnlyPaths: readonly string[];
  /** The configured bubblewrap binary; undefined: `bwrap` on `PATH`. */
  readonly bwrapPath: string | undefined;
}

/** The sandbox a set of tools uses: its status and, when active, the probe that found it. */
export interface ResolvedSandbox {
  /** The checked options. */
  readonly options: SandboxOptions;
  /** Whether commands are sandboxed, and why not. */
  readonly status: SandboxStatus;
  /** The probe that found a working bubblewrap; undefined when commands run unconfined. */
  readonly probe: BubblewrapProbe | undefined;
}

const MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];
const NETWORKS: readonly SandboxNetwork[] = ['none', 'host'];
const KEYS = new Set(['mode', 'network', 'hiddenPaths', 'readOnlyPaths', 'bwrapPath']);

/**
 * Checks the `sandbox` option of the context and fills in defaults (`auto`, network `none`).
 *
 * Contract: throws `ComputerToolsConfigError` naming the field (`sandbox`, `sandbox.mode`,
 * `sandbox.network`, `sandbox.hiddenPaths[2]`, `sandbox.bwrapPath`) for a bad value.
 */
export function normalizeSandboxOptions(sandbox: ComputerToolsContext['sandbox']): SandboxOptions {
  const defaults = { network: 'none', hiddenPaths: [], readOnlyPaths: [], bwrapPath: undefined } as const;
  if (sandbox === undefined) return { mode: 'auto', ...defaults };
  if (typeof sandbox === 'string') {
    if (!MODES.includes(sandbox)) {
      throw new ComputerToolsConfigError({
        field: 'sandbox',
        message: `must be 'auto', 'required', 'off' or an object, got ${JSON.stringify(sandbox)}`,
      });
    }
    return { mode: sandbox, ...defaults };
  }
  if (typeof sandbox !== 'object' || sandbox === null || Array.isArray(sandbox)) {
    throw new ComputerToolsConfigError({
      field: 'sandbox',
      message: "must be 'auto', 'required', 'off' or an object",
    });
  }
  const options = sandbox as ComputerSandboxOptions;
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) {
      throw new ComputerToolsConfigError({ field: `sandbox.${key}`, message: 'is not a known option' });
    }
  }
  const mode = options.mode ?? 'auto';
  if (!MODES.includes(mode)) {
    throw new ComputerToolsConfigError({
      field: 'sandbox.mode',
      message: `must be 'auto', 'required' or 'off', got ${JSON.stringify(mode)}`,
    });
  }
  const network = options.network ?? 'none';
  if (!NETWORKS.includes(network)) {
    throw new ComputerToolsConfigError({
      field: 'sandbox.network',
      message: `must be 'none' or 'host', got ${JSON.stringify(network)}`,
    });
  }
  const hiddenPaths = absolutePaths(options.hiddenPaths, 'hiddenPaths');
  const readOnlyPaths = absolutePaths(options.readOnlyPaths, 'readOnlyPaths');
  if (
    options.bwrapPath !== undefined &&
    (typeof options.bwrapPath !== 'string' || !path.isAbsolute(options.bwrapPath))
  ) {
    throw new ComputerToolsConfigError({
      field: 'sandbox.bwrapPath',
      message: `must be an absolute path, got ${JSON.stringify(options.bwrapPath)}`,
    });
  }
  return { mode, network, hiddenPaths, readOnlyPaths, bwrapPath: options.bwrapPath };
}

/** A list of absolute paths other than `/`, normalized; throws naming `sandbox.<field>[i]`. */
function absolutePaths(value: unknown, field: 'hiddenPaths' | 'readOnlyPaths'): string[] {
  const entries = value ?? [];
  if (!Array.isArray(entries)) {
    throw new ComputerToolsConfigError({
      field: `sandbox.${field}`,
      message: 'must be an array of absolute paths',
    });
  }
  return entries.map((entry: unknown, index) => {
    if (typeof entry !== 'string' || !path.isAbsolute(entry) || path.resolve(entry) === '/') {
      throw new ComputerToolsConfigError({
        field: `sandbox.${field}[${index}]`,
        message: `must be an absolute path other than /, got ${JSON.stringify(entry)}`,
      });
    }
    return path.resolve(entry);
  });
}

/** The status of `options` given the probe's answer (none when the mode is `off`). */
export function sandboxStatus(options: SandboxOptions, probe: BubblewrapProbe | undefined): SandboxStatus {
  const common = {
    mode: options.mode,
    network: options.network,
    ...(probe?.bwrapPath === undefined ? {} : { bwrapPath: probe.bwrapPath }),
    ...(probe?.version === undefined ? {} : { version: probe.version }),
  };
  if (options.mode === 'off') {
    return {
      ...common,
      active: false,
      reason: "the sandbox mode is 'off'",
      summary: "not sandboxed (mode 'off')",
    };
  }
  if (probe?.ok === true) {
    return {
      ...common,
      active: true,
      summary: `sandboxed (${probe.version ?? 'bubblewrap'}, network ${options.network})`,
    };
  }
  const reason = probe?.reason ?? 'bubblewrap was not probed';
  return { ...common, active: false, reason, summary: `not sandboxed (mode '${options.mode}'): ${reason}` };
}

/**
 * The sandbox of one set of tools, for `createComputerTools` (synchronous: a cached probe, or one
 * blocking probe per process and network setting).
 *
 * Contract: throws `ComputerToolsConfigError` (field `sandbox`) when the mode is `required` and
 * bubblewrap cannot sandbox commands here, naming the reason.
 */
export function resolveSandbox(options: SandboxOptions): ResolvedSandbox {
  const probe = options.mode === 'off' ? undefined : probeBubblewrapSync(options.bwrapPath, options.network);
  const status = sandboxStatus(options, probe);
  if (options.mode === 'required' && !status.active) {
    throw new ComputerToolsConfigError({
      field: 'sandbox',
      message: `the mode is 'required' but commands cannot be sandboxed: ${status.reason}`,
    });
  }
  return { options, status, probe: status.active ? probe : undefined };
}
