import { Command, CommanderError, InvalidArgumentError, type OutputConfiguration } from 'commander';
import type { AgentListOptions } from './commands/read-only-view';
import { loadCategoryPackages } from './config/load-category-packages';
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

/** What each step of `buildProgram` adds its commands with. */
interface ProgramContext {
  /** The process: its output, environment and working directory. */
  io: CliProcess;
  /** The `switchyard` command. */
  program: Command;
  /** Where an action's exit code goes. */
  setExitCode(code: number): void;
  /** Loads the configuration (`--config`, else `$SWITCHYARD_CONFIG`, else `./switchyard.config.json`). */
  config(options: { config?: string }): Promise<WorkerConfig>;
  /** A subcommand with the options every command takes and the program's output and exit handling. */
  command(parent: Command, name: string, description: string): Command;
}

/** The program's output: stdout and stderr of `io`, errors prefixed with `switchyard: `. */
function outputOf(io: CliProcess): OutputConfiguration {
  return {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, '')}`),
  };
}

/** The `switchyard` command itself: its description, version, help and exit handling. */
function createRootCommand(output: OutputConfiguration): Command {
  return new Command('switchyard')
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
}

/** The context every step uses: the root command, configuration loading and the subcommand factory. */
function programContextOf(io: CliProcess, setExitCode: (code: number) => void): ProgramContext {
  const output = outputOf(io);
  const program = createRootCommand(output);
  const configOptions = (options: { config?: string }): LoadConfigOptions => ({
    ...(options.config === undefined ? {} : { path: options.config }),
    cwd: io.cwd,
    env: io.env,
  });
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
  return { io, program, setExitCode, config: (options) => loadConfig(configOptions(options)), command };
}

type ListCommand = (config: WorkerConfig, options: AgentListOptions, io: CommandIO) => Promise<number>;
type ShowCommand = (config: WorkerConfig, id: string, io: CommandIO) => Promise<number>;

/**
 * A group of read-only views of the records in the control plane: `<name> list` of an agent's
 * records (`--agent`, default the configuration's agent; `--all` when `list.all` says what it adds)
 * and, for records with ids, `<name> show <id>`. Each `load` imports its command when it runs.
 */
function addReadOnlyGroup(
  cli: ProgramContext,
  view: {
    name: string;
    description: string;
    list: { description: string; all?: string; load: () => Promise<ListCommand> };
    show?: { description: string; load: () => Promise<ShowCommand> };
  },
): Command {
  const { io, program, command, config, setExitCode } = cli;
  const group = command(program, view.name, view.description);
  const list = command(group, 'list', view.list.description).option('--agent <name>', 'the agent');
  if (view.list.all !== undefined) list.option('--all', view.list.all);
  list.action(async (options: { config?: string; agent?: string; all?: boolean }) => {
    const run = await view.list.load();
    const agent = options.agent === undefined ? {} : { agent: options.agent };
    setExitCode(await run(await config(options), { ...agent, all: options.all === true }, io));
  });
  const { show } = view;
  if (show !== undefined) {
    command(group, 'show <id>', show.description).action(async (id: string, options: { config?: string }) => {
      const run = await show.load();
      setExitCode(await run(await config(options), id, io));
    });
  }
  return group;
}

/** `switchyard run <prompt>`: one text turn with live progress. */
function addRunCommand(cli: ProgramContext): void {
  const { io, program, command, setExitCode } = cli;
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
}

/** `switchyard tools`: the tool manifest the next text turn would send. */
function addToolsCommand(cli: ProgramContext): void {
  const { io, program, command, config, setExitCode } = cli;
  command(program, 'tools', 'the tool manifest the next text turn would send (read-only)')
    .option('--agent <name>', 'the agent')
    .option('--json', 'print the manifest as JSON')
    .action(async (options) => {
      const { toolsCommand } = await import('./commands/tools-command');
      await toolsCommand(
        await loadCategoryPackages(await config(options)),
        { agent: options.agent, json: options.json === true },
        io,
      );
      setExitCode(0);
    });
}

/** The read-only views of the records: `schedules`, `workflows`, `turns`, `brain` (with `brain search`). */
function addReadOnlyViews(cli: ProgramContext): void {
  const { io, command, config, setExitCode } = cli;
  addReadOnlyGroup(cli, {
    name: 'schedules',
    description: "an agent's schedules (read-only)",
    list: {
      description: "list an agent's schedules",
      all: 'include cancelled and finished schedules',
      load: async () => (await import('./commands/schedules-command')).schedulesListCommand,
    },
  });
  addReadOnlyGroup(cli, {
    name: 'workflows',
    description: 'workflows and their tasks (read-only)',
    list: {
      description: "an agent's recent workflows",
      load: async () => (await import('./commands/workflows-command')).workflowsListCommand,
    },
    show: {
      description: "a workflow's tasks and stored results",
      load: async () => (await import('./commands/workflows-command')).workflowsShowCommand,
    },
  });
  addReadOnlyGroup(cli, {
    name: 'turns',
    description: "the daemon's recorded turns (read-only)",
    list: {
      description: "an agent's recent daemon turns, newest first",
      load: async () => (await import('./commands/turns-command')).turnsListCommand,
    },
    show: {
      description: 'one recorded turn: status, usage, error, output',
      load: async () => (await import('./commands/turns-command')).turnsShowCommand,
    },
  });
  const brain = addReadOnlyGroup(cli, {
    name: 'brain',
    description: "an agent's Brain: its durable knowledge pages (read-only)",
    list: {
      description: "an agent's pages, most recently written first",
      all: 'include forgotten pages',
      load: async () => (await import('./commands/brain-command')).brainListCommand,
    },
    show: {
      description: "one page (any agent's, forgotten or not), its versions and its text",
      load: async () => (await import('./commands/brain-command')).brainShowCommand,
    },
  });
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
}

/** `switchyard approvals list|show|allow|deny`: tool calls of unattended turns held for an answer. */
function addApprovalsCommands(cli: ProgramContext): void {
  const { io, program, command, config, setExitCode } = cli;
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
  command(approvals, 'show <id>', 'one approval with its arguments whole: what runs if it is allowed')
    .option('--json', 'print it as JSON')
    .action(async (id: string, options: { config?: string; json?: boolean }) => {
      const { approvalsShowCommand } = await import('./commands/approvals-command');
      setExitCode(await approvalsShowCommand(await config(options), { id, json: options.json === true }, io));
    });
  // `allow` and `deny` differ in their words only: a denial must give the model its reason.
  for (const [decision, description, reasonHelp] of [
    ['allow', 'allow a held call: it runs once, and the turn goes on', 'why (recorded with the answer)'],
    ['deny', 'deny a held call: the model reads the reason as its output', 'why (the model reads it)'],
  ] as const) {
    const answer = command(approvals, `${decision} <id>`, description);
    if (decision === 'deny') answer.requiredOption('--reason <text>', reasonHelp);
    else answer.option('--reason <text>', reasonHelp);
    answer.action(async (id: string, options: { config?: string; reason?: string }) => {
      const { approvalsAnswerCommand } = await import('./commands/approvals-command');
      const reason = options.reason === undefined ? {} : { reason: options.reason };
      setExitCode(await approvalsAnswerCommand(await config(options), { id, decision, ...reason }, io));
    });
  }
}

/** `switchyard serve`: the daemon. */
function addServeCommand(cli: ProgramContext): void {
  const { io, program, command, config, setExitCode } = cli;
  command(program, 'serve', 'the daemon: schedule fires, workflow tasks, background jobs and an HTTP API')
    .option(
      '--agent <name>',
      'an agent whose work this process runs (repeatable; the first is the API default)',
      collect,
    )
    .option('--host <address>', 'where the HTTP API listens (default: serve.host, 127.0.0.1)')
    .option('--port <port>', 'the HTTP port; 0 picks a free one (default: serve.port, 8787)', numberOption)
    .option(
      '--health-port <port>',
      'a port of its own for GET /healthz; 0 picks a free one (default: serve.healthPort, none)',
      numberOption,
    )
    .option('--grace-ms <ms>', 'how long running turns may finish after SIGTERM', numberOption)
    .option('--tick-ms <ms>', 'how often this process fires due schedules', numberOption)
    .option('--poll-seconds <s>', 'how often an idle queue consumer polls (at least 0.5)', numberOption)
    .option(
      '--scripted-model',
      'run on the built-in scripted model: canned answers, no API key (to try serve and its console)',
    )
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
            config: await loadCategoryPackages(await config(options)),
            ...(options.agent === undefined ? {} : { agents: options.agent }),
            ...(options.host === undefined ? {} : { host: options.host }),
            ...(options.port === undefined ? {} : { port: options.port }),
            ...(options.healthPort === undefined ? {} : { healthPort: options.healthPort }),
            ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
            ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
            ...(options.pollSeconds === undefined ? {} : { pollSeconds: options.pollSeconds }),
            scriptedModel: options.scriptedModel === true,
            environment: io.env,
            stopRequested: io.stopRequested ?? new Promise(() => {}),
          },
          (line) => io.stderr.write(`${line}\n`),
        ),
      );
    });
}

/** `switchyard demo`: an offline turn against a scripted fake model. */
function addDemoCommand(cli: ProgramContext): void {
  const { io, program, command, setExitCode } = cli;
  command(program, 'demo', 'an offline turn against a scripted fake model')
    .option('--json', 'print the event stream as JSON lines')
    .action(async (options) => {
      const { runDemo } = await import('./demo');
      setExitCode(await runDemo({ ...io, json: options.json === true }));
    });
}

/**
 * The `switchyard` program: every command, its options and its usage (`--help`), parsed with
 * commander. Each action resolves with the command's exit code into `setExitCode`.
 */
function buildProgram(io: CliProcess, setExitCode: (code: number) => void): Command {
  const cli = programContextOf(io, setExitCode);
  addRunCommand(cli);
  addToolsCommand(cli);
  addReadOnlyViews(cli);
  addApprovalsCommands(cli);
  addServeCommand(cli);
  addDemoCommand(cli);
  return cli.program;
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
