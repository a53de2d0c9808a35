import type { ControlPlane } from '@switchyard/control-plane';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { readControlPlane } from '../worker-services';

/**
 * What a `list` view shows: the agent `--agent` names (the default agent without it) and what `list`
 * reads for it from the control plane (nothing when there is no database yet). Read queries only.
 */
export async function readAgentList<T>(
  config: WorkerConfig,
  agentName: string | undefined,
  list: (controlPlane: ControlPlane, agentId: string) => Promise<T[]>,
): Promise<{ agentId: string; items: T[] }> {
  const agentId = resolveAgent(config, agentName).id;
  const items = await readControlPlane(
    config,
    (controlPlane) => list(controlPlane, agentId),
    () => [],
  );
  return { agentId, items };
}

/** One record a `show <id>` view prints. */
export interface ShowRecordOptions<T> {
  /** The command, for its messages (`workflows show`). */
  command: string;
  /** What the id names, for the messages (`workflow`). */
  noun: string;
  /** The id as given. */
  id: string;
  /** The form of an id; anything else is refused before the control plane is opened. */
  idPattern: RegExp;
  /** That form in words, for the message (`a UUID`). */
  idForm: string;
  /** Reads the record; null or undefined when there is none. */
  read(controlPlane: ControlPlane): Promise<T | null | undefined>;
  /** Prints the record (it may read more from the control plane). */
  print(record: T, controlPlane: ControlPlane): Promise<void> | void;
}

/**
 * The body of a read-only `show <id>` command: checks the id's form, reads the record and prints it.
 *
 * Contract: exit code 1 with a message for an id not of the form, or one that names no record (no
 * database yet included); 0 once printed.
 */
export async function showRecord<T>(
  config: WorkerConfig,
  io: CommandIO,
  options: ShowRecordOptions<T>,
): Promise<number> {
  const { command, noun, id } = options;
  if (!options.idPattern.test(id)) {
    io.stderr.write(
      `switchyard: ${command}: ${JSON.stringify(id)} is not a ${noun} id (${options.idForm})\n`,
    );
    return 1;
  }
  const missing = () => {
    io.stderr.write(`switchyard: ${command}: no ${noun} ${id}\n`);
    return 1;
  };
  return readControlPlane(
    config,
    async (controlPlane) => {
      const record = await options.read(controlPlane);
      if (record === null || record === undefined) return missing();
      await options.print(record, controlPlane);
      return 0;
    },
    missing,
  );
}
