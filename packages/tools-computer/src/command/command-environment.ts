import path from 'node:path';
import { ComputerToolsConfigError } from '../errors/computer-tools-config-error';
import { INIT_ENVIRONMENT_PREFIX } from './sandbox-init';

/** Names a command always gets from the worker's environment (HOME is set to the agent home). */
export const BASE_ENVIRONMENT_NAMES: readonly string[] = ['PATH', 'LANG', 'TERM'];

/** Names managed by the tools themselves; configuring them is refused. */
const MANAGED_NAMES: ReadonlySet<string> = new Set(['HOME', 'SWITCHYARD_COMMAND_ID', 'MCPORTER_CONFIG']);

/** A name that looks like it holds a secret. Such a variable never reaches a command. */
export const SECRET_NAME_PATTERN =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|CERT|DSN|DATABASE_URL|CONNECTION_STRING/i;

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks the configured allowlist additions.
 *
 * Contract: throws `ComputerToolsConfigError` (field `env[i]`) for a name that is not a variable
 * name, looks like a secret, or is managed by the tools (`HOME`, and `SWITCHYARD_INIT_*`: the
 * sandbox's init takes its own values from those).
 */
export function assertAllowedEnvironmentNames(names: readonly unknown[]): void {
  names.forEach((name, index) => {
    const field = `env[${index}]`;
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
      throw new ComputerToolsConfigError({
        field,
        message: `${JSON.stringify(name)} is not a variable name`,
      });
    }
    if (SECRET_NAME_PATTERN.test(name)) {
      throw new ComputerToolsConfigError({
        field,
        message: `${name} looks like a secret; secret-looking variables never reach commands`,
      });
    }
    if (MANAGED_NAMES.has(name) || name.startsWith(INIT_ENVIRONMENT_PREFIX)) {
      throw new ComputerToolsConfigError({ field, message: `${name} is set by the computer tools` });
    }
  });
}

/** What `buildCommandEnvironment` needs. */
export interface CommandEnvironmentOptions {
  /** The agent home (becomes HOME). */
  home: string;
  /** The worker environment to pick from. */
  sourceEnv: Readonly<Record<string, string | undefined>>;
  /** Configured allowlist additions (already checked). */
  envNames: readonly string[];
  /** Directories put first on PATH. */
  pathPrepend: readonly string[];
  /** Marks every process of one command so escaped descendants can be found. */
  commandId: string;
  /** Set as MCPORTER_CONFIG when the home has an mcporter configuration. */
  mcporterConfig?: string;
}

/**
 * Builds a command's environment from the allowlist: nothing else from the worker's environment is
 * passed, and a secret-looking name is dropped even when allowlisted.
 */
export function buildCommandEnvironment(options: CommandEnvironmentOptions): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of [...BASE_ENVIRONMENT_NAMES, ...options.envNames]) {
    const value = options.sourceEnv[name];
    if (value !== undefined && !SECRET_NAME_PATTERN.test(name)) environment[name] = value;
  }
  const basePath = environment.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  const entries = [...options.pathPrepend, ...basePath.split(':')];
  // The running node comes last, as a fallback (mcporter's launcher needs a node; a profile that
  // resets PATH may have dropped the one the worker runs on).
  const nodeDirectory = path.dirname(process.execPath);
  if (!entries.includes(nodeDirectory)) entries.push(nodeDirectory);
  environment.PATH = entries.join(':');
  environment.HOME = options.home;
  environment.LANG ??= 'C.UTF-8';
  environment.TERM ??= 'dumb';
  environment.SWITCHYARD_COMMAND_ID = options.commandId;
  if (options.mcporterConfig !== undefined) environment.MCPORTER_CONFIG = options.mcporterConfig;
  return environment;
}
