import type { TurnRecord } from '@switchyard/control-plane';
import { readDaemon, recordOfView } from '../running-daemon';
import { agentListCommand, recordShowCommand } from './read-only-view';

/** Turn ids are `turn_<uuid>`; older records' ids are any short name of these characters. */
const TURN_ID = /^[A-Za-z0-9_-]{1,80}$/;
const LIST_LIMIT = 20;

/** A turn as `turns show` prints it: its record and how many events its stored log holds. */
type ShownTurn = TurnRecord & { eventsRecorded: number };

function describeTurn(turn: TurnRecord): string {
  const source = turn.sourceId === undefined ? turn.source : `${turn.source} ${turn.sourceId}`;
  const ended = turn.endedAt === undefined ? 'still running' : `ended ${turn.endedAt}`;
  return `${turn.id} ${turn.status} (${source}), started ${turn.createdAt}, ${ended}`;
}

/**
 * `switchyard turns list [--agent NAME]`: the agent's most recent turns run by `switchyard serve`
 * (API, schedule, job and task turns), newest first, from the control plane's turn records, each with
 * its title (the prompt's first line; `turns show` prints the whole prompt). Read-only; through the
 * daemon's API (`GET /v1/turns`) when a `switchyard serve` holds the embedded database.
 */
export const turnsListCommand = agentListCommand({
  read: (controlPlane, agentId) => controlPlane.turns.list({ agentId, limit: LIST_LIMIT }),
  readDaemon: async (daemon, agentId) => {
    const query = new URLSearchParams({ agent: agentId, limit: String(LIST_LIMIT) });
    const body = await readDaemon(daemon, `/v1/turns?${query}`, 'turns');
    return ((body?.turns ?? []) as Array<Record<string, unknown>>).map((item) =>
      recordOfView<TurnRecord>(item),
    );
  },
  none: (agentId) => `Agent ${agentId} has no recorded turns.`,
  heading: (turns, agentId) =>
    `${turns.length === LIST_LIMIT ? `The last ${LIST_LIMIT}` : turns.length} turn${turns.length === 1 ? '' : 's'} of agent ${agentId}, newest first:`,
  describe: (turn) => `- ${describeTurn(turn)}\n  title: ${JSON.stringify(turn.title)}`,
});

/**
 * `switchyard turns show <id>`: one recorded turn: status, source, usage, error and output, and the
 * size of its event log. Read-only; through the daemon's API when a `switchyard serve` holds the
 * embedded database (`GET /v1/turns/{id}`), with the same output.
 *
 * Contract: exit code 1 with a message for an id that is not a turn id or names no turn.
 */
export const turnsShowCommand = recordShowCommand({
  command: 'turns show',
  noun: 'turn',
  id: { pattern: TURN_ID, words: 'turn_<uuid>' },
  read: async (controlPlane, id): Promise<ShownTurn | undefined> => {
    const record = await controlPlane.turns.get(id);
    if (record === undefined) return undefined;
    return { ...record, eventsRecorded: (await controlPlane.turns.eventCount(id)) ?? 0 };
  },
  // `GET /v1/turns/{id}` gives the record's facts (its end as recorded once it ended) and the count.
  readDaemon: async (daemon, id) => {
    const body = await readDaemon(daemon, `/v1/turns/${encodeURIComponent(id)}`, 'the turn');
    return body === undefined ? undefined : recordOfView<ShownTurn>(body);
  },
  print: (turn, io) => {
    const { usage } = turn;
    io.stdout.write(`Turn ${describeTurn(turn)}\n`);
    io.stdout.write(`agent: ${turn.agentId}, worker: ${turn.workerId}\n`);
    io.stdout.write(
      `${turn.iterations} model request${turn.iterations === 1 ? '' : 's'}, ${usage.totalTokens} tokens (${usage.inputTokens} in, ${usage.outputTokens} out)\n`,
    );
    io.stdout.write(
      `events: ${turn.eventsRecorded} recorded${turn.eventsDropped > 0 ? `, ${turn.eventsDropped} left out of the middle` : ''}\n`,
    );
    io.stdout.write(`prompt: ${JSON.stringify(turn.prompt)}\n`);
    if (turn.error !== undefined) io.stdout.write(`error: ${turn.error}\n`);
    if (turn.output !== '') io.stdout.write(`output:\n${turn.output}\n`);
  },
});
