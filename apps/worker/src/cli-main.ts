import { Command, CommanderError, InvalidArgumentError, type OutputConfiguration } from 'commander';
import { type LoadConfigOptions, loadConfig } from './config/load-config';
import type { WorkerConfig } from './config/worker-config';
import { WorkerConfigError } from './config/worker-config-error';
import type { CommandIO } from './run-text-turn';
import { VERSION } from './version';

// Commands are loaded when used: `switchyard --help` or a configuration error should not pay for
// the openai SDK, PGlite and the MCP SDK.

export { VERSION } from './version';

/** What `main` needs from the process. */
export interface CliProcess extends CommandIO {
  /** The environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory. */
  cwd: string;
  /** Aborts a running turn (Ctrl-C). */
  signal?: AbortSignal;
  /** Resolves when the process is asked to stop (SIGTERM or SIGINT): `serve` drains then. */
  stopRequested?: Promise<NodeJS.Signals>;
}

/** Exit codes: 0 success, 1 the command failed, 2 bad usage or configuration. */
const USAGE_EXIT = 2;

/** A number flag: a usage error (exit 2) naming the flag when it is not a finite number. */
function numberOption(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError('expected a number.');
  return parsed;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The `switchyard` program: every command, its options and its usage (`--help`), parsed with
 * commander. Each action resolves with the command's exit code into `setExitCode`.
 */
function buildProgram(io: CliProcess, setExitCode: (code: number) => void): Command {
  const output: OutputConfiguration = {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, '')}`),
  };
  const program = new Command('switchyard')
    .description(
      'Switchyard worker: run agent turns with their tools, and the daemon that runs them unattended',
    )
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show usage')
    .helpCommand('help [command]', 'show usage of a command')
    .configureOutput(output)
    .showHelpAfterError('(switchyard <command> --help shows its usage)')
    .exitOverride()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 the command failed, 2 bad usage or configuration.\n' +
        'Every command takes --config PATH (default: $SWITCHYARD_CONFIG, else ./switchyard.config.json).',
    );

  const configOptions = (options: { config?: string }): LoadConfigOptions => ({
    ...(options.config === undefined ? {} : { path: options.config }),
    cwd: io.cwd,
    env: io.env,
  });
  const config = (options: { config?: string }): Promise<WorkerConfig> => loadConfig(configOptions(options));
  /** A subcommand with the options every command takes and the program's output and exit handling. */
  const command = (parent: Command, name: string, description: string) =>
    parent
      .command(name)
      .description(description)
      .helpOption('-h, --help', 'show usage')
      .option('--config <path>', 'the configuration file')
      .configureOutput(output)
      .showHelpAfterError(
        `(switchyard ${parent === program ? '' : `${parent.name()} `}${name.split(' ')[0]} --help shows its usage)`,
      )
      .exitOverride();

  /** What a read-only view's command is given: its `--config`, `--agent` and `--all`. */
  type ViewOptions = { config?: string; agent?: string; all: boolean };
  /**
   * A read-only `list` view of an agent's records: `--agent` (default: the configuration's agent)
   * and, with `allHelp`, `--all`. `load` imports its command when it runs; a command that resolves
   * without an exit code (a number) exits 0.
   */
  const listView = (
    parent: Command,
    description: string,
    allHelp: string | undefined,
    load: () => Promise<(config: WorkerConfig, options: ViewOptions, io: CommandIO) => Promise<unknown>>,
  ) => {
    const list = command(parent, 'list', description).option('--agent <name>', 'the agent');
    if (allHelp !== undefined) list.option('--all', allHelp);
    list.action(async (options: { config?: string; agent?: string; all?: boolean }) => {
      const run = await load();
      const code = await run(
        await config(options),
        {
          ...(options.config === undefined ? {} : { config: options.config }),
          ...(options.agent === undefined ? {} : { agent: options.agent }),
          all: options.all === true,
        },
        io,
      );
      setExitCode(typeof code === 'number' ? code : 0);
    });
  };
  /** A read-only `show <id>` view of one record; `load` imports its command, which resolves with the exit code. */
  const showView = (
    parent: Command,
    description: string,
    load: () => Promise<(config: WorkerConfig, id: string, io: CommandIO) => Promise<number>>,
  ) =>
    command(parent, 'show <id>', description).action(async (id: string, options: { config?: string }) => {
      const run = await load();
      setExitCode(await run(await config(options), id, io));
    });

  command(program, 'run <prompt>', 'one text turn with live progress')
    .option('--agent <name>', 'the agent (default: "agent" of the configuration, main)')
    .option('--json', 'print the event stream as JSON lines')
    .option('--confirm-destructive', 'ask before every destructive tool call')
    .option('--trace', "print the turn's span tree with durations when it ends")
    .action(async (prompt: string, options, self: Command) => {
      if (prompt.trim() === '')
        self.error('run takes one non-empty prompt: switchyard run "<prompt>"', { exitCode: USAGE_EXIT });
      const { runCommand } = await import('./commands/run-command');
      setExitCode(
        await runCommand(
          {
            prompt,
            ...(options.agent === undefined ? {} : { agent: options.agent }),
            json: options.json === true,
            confirmDestructive: options.confirmDestructive === true,
            trace: options.trace === true,
            ...(options.config === undefined ? {} : { configPath: options.config }),
            env: io.env,
            cwd: io.cwd,
            ...(io.signal === undefined ? {} : { signal: io.signal }),
          },
          io,
        ),
      );
    });

  command(program, 'tools', 'the tool manifest the next text turn would send (read-only)')
    .option('--agent <name>', 'the agent')
    .option('--json', 'print the manifest as JSON')
    .action(async (options) => {
      const { toolsCommand } = await import('./commands/tools-command');
      await toolsCommand(await config(options), { agent: options.agent, json: options.json === true }, io);
      setExitCode(0);
    });

  const schedules = command(program, 'schedules', "an agent's schedules (read-only)");
  listView(
    schedules,
    "list an agent's schedules",
    'include cancelled and finished schedules',
    async () => (await import('./commands/schedules-command')).schedulesListCommand,
  );

  const workflows = command(program, 'workflows', 'workflows and their tasks (read-only)');
  listView(
    workflows,
    "an agent's recent workflows",
    undefined,
    async () => (await import('./commands/workflows-command')).workflowsListCommand,
  );
  showView(
    workflows,
    "a workflow's tasks and stored results",
    async () => (await import('./commands/workflows-command')).workflowsShowCommand,
  );

  const turns = command(program, 'turns', "the daemon's recorded turns (read-only)");
  listView(
    turns,
    "an agent's recent daemon turns, newest first",
    undefined,
    async () => (await import('./commands/turns-command')).turnsListCommand,
  );
  showView(
    turns,
    'one recorded turn: status, usage, error, output',
    async () => (await import('./commands/turns-command')).turnsShowCommand,
  );

  const brain = command(program, 'brain', "an agent's Brain: its durable knowledge pages (read-only)");
  listView(
    brain,
    "an agent's pages, most recently written first",
    'include forgotten pages',
    async () => (await import('./commands/brain-command')).brainListCommand,
  );
  showView(
    brain,
    "one page (any agent's, forgotten or not), its versions and its text",
    async () => (await import('./commands/brain-command')).brainShowCommand,
  );
  command(brain, 'search <query>', "what recall finds in an agent's pages, best first")
    .option('--agent <name>', 'the agent')
    .option('--tag <tag>', 'only pages with this tag (repeatable)', collect)
    .option('--limit <n>', 'most pages shown, 1 to 50 (default 10)', numberOption)
    .addHelpText(
      'after',
      '\nThe query reads like a web search: words, "a quoted phrase", -word to leave out, or.',
    )
    .action(async (query: string, options, self: Command) => {
      if (query.trim() === '')
        self.error('brain search takes one non-empty query: switchyard brain search "<query>"', {
          exitCode: USAGE_EXIT,
        });
      const limit = options.limit ?? 10;
      if (!Number.isInteger(limit) || limit < 1 || limit > 50)
        self.error(
          `option '--limit <n>' argument '${limit}' is invalid. expected a whole number from 1 to 50.`,
          {
            exitCode: USAGE_EXIT,
          },
        );
      const { brainSearchCommand } = await import('./commands/brain-command');
      setExitCode(
        await brainSearchCommand(
          await config(options),
          query,
          {
            ...(options.agent === undefined ? {} : { agent: options.agent }),
            tags: options.tag ?? [],
            limit,
          },
          io,
        ),
      );
    });

  const approvals = command(program, 'approvals', 'tool calls of unattended turns held for an answer');
  command(approvals, 'list', 'pending approvals, newest first (every agent unless --agent)')
    .option('--agent <name>', 'only this agent’s')
    .option('--all', 'recent approvals whatever their state')
    .option('--json', 'print them as JSON')
    .action(async (options) => {
      const { approvalsListCommand } = await import('./commands/approvals-command');
      setExitCode(
        await approvalsListCommand(
          await config(options),
          {
            ...(options.agent === undefined ? {} : { agent: options.agent }),
            all: options.all === true,
            json: options.json === true,
          },
          io,
        ),
      );
    });
  command(approvals, 'allow <id>', 'allow a held call: it runs once, and the turn goes on')
    .option('--reason <text>', 'why (recorded with the answer)')
    .action(async (id: string, options) => {
      const { approvalsAnswerCommand } = await import('./commands/approvals-command');
      setExitCode(
        await approvalsAnswerCommand(
          await config(options),
          { id, decision: 'allow', ...(options.reason === undefined ? {} : { reason: options.reason }) },
          io,
        ),
      );
    });
  command(approvals, 'deny <id>', 'deny a held call: the model reads the reason as its output')
    .requiredOption('--reason <text>', 'why (the model reads it)')
    .action(async (id: string, options) => {
      const { approvalsAnswerCommand } = await import('./commands/approvals-command');
      setExitCode(
        await approvalsAnswerCommand(
          await config(options),
          { id, decision: 'deny', reason: options.reason },
          io,
        ),
      );
    });

  command(program, 'serve', 'the daemon: schedule fires, workflow tasks, background jobs and an HTTP API')
    .option(
      '--agent <name>',
      'an agent whose work this process runs (repeatable; the first is the API default)',
      collect,
    )
    .option('--host <address>', 'where the HTTP API listens (default: serve.host, 127.0.0.1)')
    .option('--port <port>', 'the HTTP port; 0 picks a free one (default: serve.port, 8787)', numberOption)
    .option('--grace-ms <ms>', 'how long running turns may finish after SIGTERM', numberOption)
    .option('--tick-ms <ms>', 'how often this process fires due schedules', numberOption)
    .option('--poll-seconds <s>', 'how often an idle queue consumer polls (at least 0.5)', numberOption)
    .addHelpText(
      'after',
      '\nFlags override the "serve" section of switchyard.config.json.\n' +
        'Environment: OPENAI_API_KEY, OPENAI_BASE_URL, SWITCHYARD_MODEL, DATABASE_URL, SWITCHYARD_SERVE_TOKEN.',
    )
    .action(async (options) => {
      const { runServeCommand } = await import('./daemon/serve-command');
      setExitCode(
        await runServeCommand(
          {
            config: await config(options),
            ...(options.agent === undefined ? {} : { agents: options.agent }),
            ...(options.host === undefined ? {} : { host: options.host }),
            ...(options.port === undefined ? {} : { port: options.port }),
            ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
            ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
            ...(options.pollSeconds === undefined ? {} : { pollSeconds: options.pollSeconds }),
            environment: io.env,
            stopRequested: io.stopRequested ?? new Promise(() => {}),
          },
          (line) => io.stderr.write(`${line}\n`),
        ),
      );
    });

  command(program, 'demo', 'an offline turn against a scripted fake model')
    .option('--json', 'print the event stream as JSON lines')
    .action(async (options) => {
      const { runDemo } = await import('./demo');
      setExitCode(await runDemo({ ...io, json: options.json === true }));
    });

  return program;
}

/**
 * Runs one `switchyard` invocation and resolves with its exit code: 0 success, 1 the command
 * failed (a failed turn, an unknown workflow), 2 bad usage or configuration (the message names the
 * flag, or the field with its full path and the file).
 */
export async function main(argv: readonly string[], io: CliProcess): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0 by commander's own account; every parse error,
      // and `switchyard` alone (usage on stderr), is a usage error.
      return error.exitCode === 0 ? 0 : USAGE_EXIT;
    }
    if (WorkerConfigError.isInstance(error)) {
      io.stderr.write(`switchyard: ${error.message}\n`);
      return USAGE_EXIT;
    }
    throw error;
  }
}
