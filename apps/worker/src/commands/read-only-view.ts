import type { ControlPlane } from '@switchyard/control-plane';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { findRunningDaemon, type RunningDaemon } from '../running-daemon';
import { readControlPlane } from '../worker-services';

/** What `--agent` and `--all` give a read-only `list` command. */
export interface AgentListOptions {
  /** `--agent`: the agent whose records are listed (default: the configuration's agent). */
  agent?: string;
  /** `--all`: also the records a plain list leaves out (false where the command has no `--all`). */
  all: boolean;
}

/** What a read-only `list` command of an agent's records reads and prints. */
export interface AgentListView<T> {
  /** Reads the agent's records from the control plane, in the order they are printed. */
  read(controlPlane: ControlPlane, agentId: string, all: boolean): Promise<T[]>;
  /**
   * Reads them through the HTTP API of the `switchyard serve` holding the embedded database, when one
   * does (`findRunningDaemon`); absent: the command refuses then, naming the process.
   */
  readDaemon?(daemon: RunningDaemon, agentId: string, all: boolean): Promise<T[]>;
  /** The line printed when the agent has none. */
  none(agentId: string, all: boolean): string;
  /** The line above the records. */
  heading(records: readonly T[], agentId: string, all: boolean): string;
  /** The lines of one record: `- ` first, more lines indented by two spaces. */
  describe(record: T): string;
}

/**
 * A read-only `list` command from its view: the agent `--agent` names (the default agent without
 * it), its records (none when there is no database yet), printed under a heading, or the `none` line.
 *
 * Contract: the command resolves with exit code 0 once printed; an unknown agent throws the
 * configuration's error (a usage error).
 */
export function agentListCommand<T>(
  view: AgentListView<T>,
): (config: WorkerConfig, options: AgentListOptions, io: CommandIO) => Promise<number> {
  return async (config, options, io) => {
    const agentId = resolveAgent(config, options.agent).id;
    const daemon = view.readDaemon === undefined ? undefined : await findRunningDaemon(config);
    const items =
      daemon !== undefined && view.readDaemon !== undefined
        ? await view.readDaemon(daemon, agentId, options.all)
        : await readControlPlane(
            config,
            (controlPlane) => view.read(controlPlane, agentId, options.all),
            () => [],
          );
    if (items.length === 0) {
      io.stdout.write(`${view.none(agentId, options.all)}\n`);
      return 0;
    }
    io.stdout.write(`${view.heading(items, agentId, options.all)}\n`);
    for (const item of items) io.stdout.write(`${view.describe(item)}\n`);
    return 0;
  };
}

/** The form of the ids a `show <id>` command takes. */
export interface IdForm {
  /** Anything else is refused before the control plane is opened. */
  pattern: RegExp;
  /** The form in words, for the message (`a UUID`). */
  words: string;
}

/** A UUID id (workflows, Brain pages): the form a view's ids take unless it says otherwise. */
const UUID_ID: IdForm = {
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  words: 'a UUID',
};

/** What a read-only `show <id>` command reads and prints. */
export interface RecordShowView<T> {
  /** The command, for its messages (`workflows show`). */
  command: string;
  /** What the id names, for the messages (`workflow`). */
  noun: string;
  /** The form of an id (default: a UUID). */
  id?: IdForm;
  /** Reads the record; null or undefined when there is none. */
  read(controlPlane: ControlPlane, id: string): Promise<T | null | undefined>;
  /** Reads it through a running daemon's HTTP API (see `AgentListView.readDaemon`). */
  readDaemon?(daemon: RunningDaemon, id: string): Promise<T | undefined>;
  /**
   * Prints the record on `io` (it may read more from the control plane, which is absent when the
   * record came through a daemon: only views with `readDaemon` get there, and print without it).
   */
  print(record: T, io: CommandIO, controlPlane: ControlPlane | undefined): Promise<void> | void;
}

/**
 * A read-only `show <id>` command from its view: checks the id's form, reads the record and prints it.
 *
 * Contract: the command resolves with exit code 1 and a message for an id not of the form, or one
 * that names no record (no database yet included); 0 once printed.
 */
export function recordShowCommand<T>(
  view: RecordShowView<T>,
): (config: WorkerConfig, id: string, io: CommandIO) => Promise<number> {
  return async (config, id, io) => {
    const { command, noun, id: form = UUID_ID } = view;
    if (!form.pattern.test(id)) {
      io.stderr.write(`switchyard: ${command}: ${JSON.stringify(id)} is not a ${noun} id (${form.words})\n`);
      return 1;
    }
    const missing = () => {
      io.stderr.write(`switchyard: ${command}: no ${noun} ${id}\n`);
      return 1;
    };
    const daemon = view.readDaemon === undefined ? undefined : await findRunningDaemon(config);
    if (daemon !== undefined && view.readDaemon !== undefined) {
      const record = await view.readDaemon(daemon, id);
      if (record === undefined) return missing();
      await view.print(record, io, undefined);
      return 0;
    }
    return readControlPlane(
      config,
      async (controlPlane) => {
        const record = await view.read(controlPlane, id);
        if (record === null || record === undefined) return missing();
        await view.print(record, io, controlPlane);
        return 0;
      },
      missing,
    );
  };
}
