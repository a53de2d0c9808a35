import type { TurnRecord } from '@switchyard/control-plane';
import { agentListCommand, recordShowCommand } from './read-only-view';

/** Turn ids are `turn_<uuid>`; older records' ids are any short name of these characters. */
const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
const LIST_LIMIT = 20;

function describeTurn(turn: TurnRecord): string {
  const source = turn.sourceId === undefined ? turn.source : `${turn.source} ${turn.sourceId}`;
  const ended = turn.endedAt === undefined ? 'still running' : `ended ${turn.endedAt}`;
  return `${turn.id} ${turn.status} (${source}), started ${turn.createdAt}, ${ended}`;
}

/**
 * `switchyard turns list [--agent NAME]`: the agent's most recent turns run by `switchyard serve`
 * (API, schedule, job and task turns), newest first, from the control plane's turn records, each with
 * its title (the prompt's first line; `turns show` prints the whole prompt). Read-only.
 */
export const turnsListCommand = agentListCommand({
  read: (controlPlane, agentId) => controlPlane.turns.list({ agentId, limit: LIST_LIMIT }),
  none: (agentId) => `Agent ${agentId} has no recorded turns.`,
  heading: (turns, agentId) =>
    `${turns.length === LIST_LIMIT ? `The last ${LIST_LIMIT}` : turns.length} turn${turns.length === 1 ? '' : 's'} of agent ${agentId}, newest first:`,
  describe: (turn) => `- ${describeTurn(turn)}\n  title: ${JSON.stringify(turn.title)}`,
});

/**
 * `switchyard turns show <id>`: one recorded turn: status, source, usage, error and output, and the
 * size of its event log. Read-only.
 *
 * Contract: exit code 1 with a message for an id that is not a turn id or names no turn.
 */
export const turnsShowCommand = recordShowCommand({
  command: 'turns show',
  noun: 'turn',
  id: { pattern: TURN_ID, words: 'turn_<uuid>' },
  read: (controlPlane, id) => controlPlane.turns.get(id),
  print: async (turn, io, controlPlane) => {
    const log = await controlPlane?.turns.events(turn.id);
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
  },
});
