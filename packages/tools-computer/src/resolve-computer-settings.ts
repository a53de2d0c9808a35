import { spawn as nodeSpawn } from 'node:child_process';
import { assertAllowedEnvironmentNames } from './command/command-environment';
import { defaultPathPrepend } from './command/default-path-prepend';
import { normalizeSandboxOptions, type ResolvedSandbox, resolveSandbox } from './command/resolve-sandbox';
import type { ComputerToolsContext, ComputerToolsLimits, SpawnFunction } from './computer-tools-context';
import { ComputerToolsConfigError } from './errors/computer-tools-config-error';
import { mergePositiveLimits } from './merge-positive-limits';
import { type AgentHome, resolveAgentHome } from './paths/agent-home';

/** The checked settings every computer tool shares. */
export interface ComputerSettings {
  readonly home: AgentHome;
  readonly envNames: readonly string[];
  readonly sourceEnv: Readonly<Record<string, string | undefined>>;
  readonly pathPrepend: readonly string[];
  readonly limits: Readonly<Required<ComputerToolsLimits>>;
  readonly spawn: SpawnFunction;
  /**
   * Whether each sandboxed command takes a bubblewrap started ahead of it and parks one for the
   * next (`sandbox-process.ts`): with Node's own `spawn` only, not with one the context gives.
   */
  readonly parkSandboxes: boolean;
  /** Whether commands run in the bubblewrap sandbox, and its options. */
  readonly sandbox: ResolvedSandbox;
}

const DEFAULT_LIMITS: Required<ComputerToolsLimits> = {
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: 600_000,
  killGraceMs: 2_000,
  maxOutputBytes: 16 * 1024,
  maxSavedOutputBytes: 64 * 1024 * 1024,
  maxSavedOutputs: 20,
  maxProcesses: 512,
  maxMemoryBytes: 1024 * 1024 * 1024,
  maxCpuSeconds: 600,
  maxOpenFiles: 4096,
  maxHomeBytes: 2 * 1024 * 1024 * 1024,
  maxFileBytes: 10 * 1024 * 1024,
  maxReadLines: 2_000,
  maxReadBytes: 64 * 1024,
  maxLineLength: 2_000,
  maxListEntries: 1_000,
  maxSearchMatches: 200,
  maxWalkEntries: 100_000,
  searchTimeoutMs: 10_000,
};

/**
 * The smallest values a command can run within: the sandbox's init, bash and one program need a few
 * processes, descriptors and megabytes (a smaller memory limit fails at bash's start, not at the
 * model's command).
 */
const MINIMUM_LIMITS: Partial<Record<keyof ComputerToolsLimits, number>> = {
  maxProcesses: 8,
  maxMemoryBytes: 32 * 1024 * 1024,
  maxOpenFiles: 32,
  maxHomeBytes: 1024 * 1024,
};

function resolveLimits(limits: ComputerToolsLimits | undefined): Required<ComputerToolsLimits> {
  const resolved = mergePositiveLimits<Required<ComputerToolsLimits>>(limits, DEFAULT_LIMITS, {
    noun: 'limit',
    minimums: MINIMUM_LIMITS,
  });
  if (resolved.defaultTimeoutMs > resolved.maxTimeoutMs) {
    throw new ComputerToolsConfigError({
      field: 'limits.defaultTimeoutMs',
      message: `${resolved.defaultTimeoutMs} exceeds limits.maxTimeoutMs (${resolved.maxTimeoutMs})`,
    });
  }
  return resolved;
}

/**
 * Checks a `ComputerToolsContext` and fills in defaults.
 *
 * Contract: throws `ComputerToolsConfigError` naming the field for any bad value.
 */
export function resolveComputerSettings(context: ComputerToolsContext): ComputerSettings {
  if (typeof context !== 'object' || context === null) {
    throw new ComputerToolsConfigError({ field: 'context', message: 'must be an object' });
  }
  const home = resolveAgentHome(context.home);
  const envNames = context.env ?? [];
  if (!Array.isArray(envNames)) {
    throw new ComputerToolsConfigError({ field: 'env', message: 'must be an array of variable names' });
  }
  assertAllowedEnvironmentNames(envNames);
  const pathPrepend = context.pathPrepend ?? defaultPathPrepend();
  if (!Array.isArray(pathPrepend) || pathPrepend.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new ComputerToolsConfigError({
      field: 'pathPrepend',
      message: 'must be an array of non-empty directory paths',
    });
  }
  if (pathPrepend.some((entry) => entry.includes(':'))) {
    throw new ComputerToolsConfigError({ field: 'pathPrepend', message: "an entry cannot contain ':'" });
  }
  if (context.spawn !== undefined && typeof context.spawn !== 'function') {
    throw new ComputerToolsConfigError({ field: 'spawn', message: 'must be a function' });
  }
  if (
    context.sourceEnv !== undefined &&
    (typeof context.sourceEnv !== 'object' || context.sourceEnv === null)
  ) {
    throw new ComputerToolsConfigError({ field: 'sourceEnv', message: 'must be an object' });
  }
  // Last: the other fields are checked before a probe may start a process.
  const limits = resolveLimits(context.limits);
  const sandbox = resolveSandbox(normalizeSandboxOptions(context.sandbox));
  return {
    home,
    envNames: [...envNames],
    sourceEnv: context.sourceEnv ?? process.env,
    pathPrepend: [...pathPrepend],
    limits,
    spawn: context.spawn ?? nodeSpawn,
    parkSandboxes: context.spawn === undefined,
    sandbox,
  };
}
