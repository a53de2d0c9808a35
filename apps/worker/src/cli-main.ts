import { parseArgs } from 'node:util';
import { loadConfig } from './config/load-config';
import { WorkerConfigError } from './config/worker-config-error';
import type { CommandIO } from './run-text-turn';

// Commands are loaded when used: `switchyard help` or a configuration error should not pay for
// the openai SDK, PGlite and the MCP SDK.

/** The usage text `switchyard help` prints. */
export const USAGE = `usage: switchyard <command> [options]

commands:
  run "<prompt>" [--agent NAME] [--json] [--confirm-destructive]
                                one text turn with live progress
  tools [--agent NAME]          the tool manifest the next turn would send
  schedules list [--agent NAME] [--all]
                                an agent's schedules (read-only)
  workflows show <id>           a workflow's tasks and results (read-only)
  turns list [--agent NAME]     an agent's recent daemon turns (read-only)
  turns show <id>               one recorded turn: status, usage, error, output (read-only)
  serve [--agent NAME]... [--host ADDRESS] [--port PORT] [--grace-ms MS]
                                the daemon: schedule fires, workflow tasks, jobs, and an HTTP API
  demo                          an offline turn against a scripted fake model
  help                          this text

options for every command:
  --config PATH                 the configuration (default: $SWITCHYARD_CONFIG, else ./switchyard.config.json)
`;

/** What `main` needs from the process. */
export interface CliProcess extends CommandIO {
  /** The environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory. */
  cwd: string;
  /** Aborts a running turn (Ctrl-C). */
  signal?: AbortSignal;
}

function fail(io: CliProcess, message: string): number {
  io.stderr.write(`switchyard: ${message}\n${USAGE}`);
  return 2;
}

/**
 * Runs one `switchyard` invocation and resolves with its exit code: 0 success, 1 the command
 * failed (a failed turn, an unknown workflow), 2 bad usage or configuration.
 */
export async function main(argv: readonly string[], io: CliProcess): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return fail(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const configOptions = {
    ...(values.config === undefined ? {} : { path: values.config }),
    cwd: io.cwd,
    env: io.env,
  };
  try {
    switch (command) {
      case 'run': {
        if (rest.length !== 1 || rest[0] === undefined || rest[0].trim() === '') {
          return fail(io, 'run takes one prompt: switchyard run "<prompt>"');
        }
        const { runCommand } = await import('./commands/run-command');
        return await runCommand(
          {
            prompt: rest[0],
            ...(values.agent === undefined ? {} : { agent: values.agent }),
            json: values.json === true,
            confirmDestructive: values['confirm-destructive'] === true,
            ...(values.config === undefined ? {} : { configPath: values.config }),
            env: io.env,
            cwd: io.cwd,
            ...(io.signal === undefined ? {} : { signal: io.signal }),
          },
          io,
        );
      }
      case 'tools': {
        if (rest.length > 0) return fail(io, `tools takes no arguments, got ${rest.join(' ')}`);
        const { toolsCommand } = await import('./commands/tools-command');
        await toolsCommand(await loadConfig(configOptions), values.agent, io);
        return 0;
      }
      case 'schedules': {
        if (rest[0] !== 'list' || rest.length !== 1) return fail(io, 'schedules has one subcommand: list');
        const { schedulesListCommand } = await import('./commands/schedules-command');
        await schedulesListCommand(
          await loadConfig(configOptions),
          { ...(values.agent === undefined ? {} : { agent: values.agent }), all: values.all === true },
          io,
        );
        return 0;
      }
      case 'workflows': {
        if (rest[0] !== 'show' || rest.length !== 2 || rest[1] === undefined) {
          return fail(io, 'usage: switchyard workflows show <id>');
        }
        const { workflowsShowCommand } = await import('./commands/workflows-command');
        return await workflowsShowCommand(await loadConfig(configOptions), rest[1], io);
      }
      case 'turns': {
        const { turnsListCommand, turnsShowCommand } = await import('./commands/turns-command');
        if (rest[0] === 'list' && rest.length === 1) {
          await turnsListCommand(
            await loadConfig(configOptions),
            values.agent === undefined ? {} : { agent: values.agent },
            io,
          );
          return 0;
        }
        if (rest[0] === 'show' && rest.length === 2 && rest[1] !== undefined) {
          return await turnsShowCommand(await loadConfig(configOptions), rest[1], io);
        }
        return fail(io, 'usage: switchyard turns list [--agent NAME] | switchyard turns show <id>');
      }
      case 'demo': {
        const { runDemo } = await import('./demo');
        return await runDemo({ ...io, json: values.json === true });
      }
      case 'help':
        io.stdout.write(USAGE);
        return 0;
      default:
        return fail(io, command === undefined ? 'no command given' : `unknown command '${command}'`);
    }
  } catch (error) {
    if (WorkerConfigError.isInstance(error)) {
      io.stderr.write(`switchyard: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string' },
      json: { type: 'boolean' },
      'confirm-destructive': { type: 'boolean' },
      config: { type: 'string' },
      all: { type: 'boolean' },
    },
  });
}
