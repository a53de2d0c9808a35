import type { TurnRecord } from '@switchyard/control-plane';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import { readControlPlane } from '../worker-services';

const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
const LIST_LIMIT = 20;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function describeTurn(turn: TurnRecord): string {
  const source = turn.sourceId === undefined ? turn.source : `${turn.source} ${turn.sourceId}`;
  const ended = turn.endedAt === undefined ? 'still running' : `ended ${turn.endedAt}`;
  return `${turn.id} ${turn.status} (${source}), started ${turn.createdAt}, ${ended}`;
}

/**
 * `switchyard turns list [--agent NAME]`: the agent's most recent turns run by `switchyard serve`
 * (API, schedule, job and task turns), newest first, from the control plane's turn records. Read-only.
 */
export async function turnsListCommand(
  config: WorkerConfig,
  options: { agent?: string },
  io: CommandIO,
): Promise<void> {
  const agent = resolveAgent(config, options.agent);
  const turns = await readControlPlane(
    config,
    (controlPlane) => controlPlane.turns.list({ agentId: agent.id, limit: LIST_LIMIT }),
    () => [],
  );
  if (turns.length === 0) {
    io.stdout.write(`Agent ${agent.id} has no recorded turns.\n`);
    return;
  }
  io.stdout.write(
    `${turns.length === LIST_LIMIT ? `The last ${LIST_LIMIT}` : turns.length} turn${turns.length === 1 ? '' : 's'} of agent ${agent.id}, newest first:\n`,
  );
  for (const turn of turns) {
    io.stdout.write(`- ${describeTurn(turn)}\n  prompt: ${JSON.stringify(oneLine(turn.prompt, 100))}\n`);
  }
}

/**
 * `switchyard turns show <id>`: one recorded turn: status, source, usage, error and output, and the
 * size of its event log. Read-only.
 *
 * Contract: exit code 1 with a message for an id that is not a turn id or names no turn.
 */
export async function turnsShowCommand(config: WorkerConfig, id: string, io: CommandIO): Promise<number> {
  if (!TURN_ID.test(id)) {
    io.stderr.write(`switchyard: turns show: ${JSON.stringify(id)} is not a turn id (turn_<uuid>)\n`);
    return 1;
  }
  const noTurn = () => {
    io.stderr.write(`switchyard: turns show: no turn ${id}\n`);
    return 1;
  };
  return readControlPlane(
    config,
    async (controlPlane) => {
      const turn = await controlPlane.turns.get(id);
      if (turn === undefined) return noTurn();
      const log = await controlPlane.turns.events(id);
      const { usage } = turn;
      io.stdout.write(`Turn ${describeTurn(turn)}\n`);
      io.stdout.write(`agent: ${turn.agentId}, worker: ${turn.workerId}\n`);
      io.stdout.write(
        `${turn.iterations} model request${turn.iterations === 1 ? '' : 's'}, ${usage.totalTokens} tokens (${usage.inputTokens} in, ${usage.outputTokens} out)\n`,
      );
      io.stdout.write(
        `events: ${log?.events.length ?? 0} recorded${turn.eventsDropped > 0 ? `, ${turn.eventsDropped} left out of the middle` : ''}\n`,
      );
      io.stdout.write(`prompt: ${JSON.stringify(turn.prompt)}\n`);
      if (turn.error !== undefined) io.stdout.write(`error: ${turn.error}\n`);
      if (turn.output !== '') io.stdout.write(`output:\n${turn.output}\n`);
      return 0;
    },
    noTurn,
  );
}
