import {
  type BrainHitRecord,
  type BrainPageDetails,
  type BrainPageSummary,
  ControlPlaneInputError,
} from '@switchyard/control-plane';
import { resolveAgent } from '../config/resolve-agent';
import type { WorkerConfig } from '../config/worker-config';
import type { CommandIO } from '../run-text-turn';
import {
  daemonError,
  findRunningDaemon,
  type RunningDaemon,
  readDaemon,
  recordOfView,
  requestDaemon,
} from '../running-daemon';
import { readControlPlane } from '../worker-services';
import { agentListCommand, recordShowCommand } from './read-only-view';

const LIST_LIMIT = 100;

// Page text was written by a model: a terminal control sequence in it (an escape, a carriage return)
// must not reach the operator's terminal as one. Newlines and tabs stay; the rest show as U+FFFD.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Model-made text made safe to print on a terminal. */
function printable(text: string): string {
  return text.replace(CONTROL, '\ufffd');
}

function size(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;
}

function tagList(tags: readonly string[]): string {
  return tags.length === 0 ? '' : `, tags: ${printable(tags.join(', '))}`;
}

function describePage(page: BrainPageSummary): string {
  const forgotten = page.archivedAt === null ? '' : `, forgotten ${page.archivedAt}`;
  return `${page.pageId} "${printable(page.title)}" (version ${page.version}${tagList(page.tags)}; ${size(page.bytes)}; written ${page.updatedAt}${forgotten})`;
}

/**
 * `switchyard brain list [--agent NAME] [--all]`: the agent's Brain pages, most recently written
 * first (`--all` adds forgotten ones). Read-only; through the daemon's API (`GET /v1/brain/pages`)
 * when a `switchyard serve` holds the embedded database.
 */
export const brainListCommand = agentListCommand({
  read: (controlPlane, agentId, all) =>
    controlPlane.brain.listPages({ agentId, includeArchived: all, limit: LIST_LIMIT }),
  readDaemon: async (daemon, agentId, all) => {
    const query = new URLSearchParams({ agent: agentId, all: String(all), limit: String(LIST_LIMIT) });
    const body = await readDaemon(daemon, `/v1/brain/pages?${query}`, 'Brain pages');
    return ((body?.pages ?? []) as Array<Record<string, unknown>>).map((page) =>
      recordOfView<BrainPageSummary>(page),
    );
  },
  none: (agentId, all) =>
    `Agent ${agentId} has no pages in its Brain${all ? '' : ' (--all adds forgotten ones)'}.`,
  heading: (pages, agentId) => {
    const count =
      pages.length === LIST_LIMIT
        ? `The ${LIST_LIMIT} latest pages`
        : `${pages.length} page${pages.length === 1 ? '' : 's'}`;
    return `${count} of agent ${agentId}, most recently written first:`;
  },
  describe: (page) => `- ${describePage(page)}`,
});

/**
 * `switchyard brain show <id>`: one page, whichever agent's and forgotten or not, with the versions
 * kept and its text. Read-only; through the daemon's API (`GET /v1/brain/pages/{id}`) when a
 * `switchyard serve` holds the embedded database, which shows only the pages of the agents it serves.
 *
 * Contract: exit code 1 with a message for an id that is not a page id or names no page.
 */
export const brainShowCommand = recordShowCommand({
  command: 'brain show',
  noun: 'page',
  read: (controlPlane, id) => controlPlane.brain.showPage({ pageId: id }),
  readDaemon: async (daemon, id) => {
    const body = await readDaemon(daemon, `/v1/brain/pages/${encodeURIComponent(id)}`, 'the page');
    return body === undefined ? undefined : recordOfView<BrainPageDetails>(body);
  },
  print: (page, io) => {
    const earlier = page.versions.length - 1;
    io.stdout.write(`Page ${page.pageId} of agent ${page.agentId}: "${printable(page.title)}"\n`);
    io.stdout.write(
      `version ${page.version}${earlier === 0 ? '' : ` (${earlier} earlier version${earlier === 1 ? '' : 's'} kept)`}${tagList(page.tags)}\n`,
    );
    io.stdout.write(`written ${page.updatedAt}, first written ${page.createdAt}\n`);
    if (page.archivedAt !== null)
      io.stdout.write(`forgotten ${page.archivedAt}: the agent no longer sees it\n`);
    if (earlier > 0) {
      io.stdout.write('versions:\n');
      for (const version of page.versions) {
        io.stdout.write(
          `- ${version.version}: "${printable(version.title)}", ${size(version.bytes)}, written ${version.writtenAt}\n`,
        );
      }
    }
    io.stdout.write(`\n${printable(page.body)}${page.body.endsWith('\n') ? '' : '\n'}`);
  },
});

function describeHit(hit: BrainHitRecord): string {
  const matched = hit.everyTerm
    ? 'every term'
    : `${hit.matchedTerms} term${hit.matchedTerms === 1 ? '' : 's'} of the query`;
  return `${hit.pageId} "${printable(hit.title)}" (version ${hit.version}${tagList(hit.tags)}; ${matched}, rank ${hit.rank.toFixed(3)})\n  ${printable(hit.snippet).replace(/\s+/g, ' ')}`;
}

/**
 * A recall through the daemon's API (`GET /v1/brain/search`): its hits, or the control plane's message
 * for a query it refused (the API's 400 carries it unchanged).
 */
async function recallThroughDaemon(
  daemon: RunningDaemon,
  request: { agentId: string; query: string; tags: string[]; limit: number },
): Promise<{ hits: BrainHitRecord[] } | { refused: string }> {
  const query = new URLSearchParams({
    agent: request.agentId,
    query: request.query,
    limit: String(request.limit),
  });
  for (const tag of request.tags) query.append('tag', tag);
  const answer = await requestDaemon(daemon, 'GET', `/v1/brain/search?${query}`);
  if (answer.status === 400) return { refused: daemonError(answer) };
  if (answer.status !== 200) {
    throw new Error(`searching the Brain through the daemon's API (${daemon.url}): ${daemonError(answer)}`);
  }
  return { hits: (answer.body.hits ?? []) as BrainHitRecord[] };
}

/**
 * `switchyard brain search "<query>" [--agent NAME] [--tag TAG]... [--limit N]`: what `recall` finds
 * for the agent, best first, with each page's snippet. Read-only; through the daemon's API
 * (`GET /v1/brain/search`) when a `switchyard serve` holds the embedded database.
 *
 * Contract: exit code 1 with the control plane's message for a query it refuses (over its size limit,
 * a bad tag or limit).
 */
export async function brainSearchCommand(
  config: WorkerConfig,
  query: string,
  options: { agent?: string; tags: string[]; limit: number },
  io: CommandIO,
): Promise<number> {
  const agent = resolveAgent(config, options.agent);
  const request = { agentId: agent.id, query, tags: options.tags, limit: options.limit };
  const daemon = await findRunningDaemon(config);
  const refuse = (message: string) => {
    io.stderr.write(`switchyard: brain search: ${message}\n`);
    return 1;
  };
  let hits: BrainHitRecord[];
  if (daemon === undefined) {
    try {
      hits = await readControlPlane(
        config,
        (controlPlane) => controlPlane.brain.recall(request),
        () => [],
      );
    } catch (error) {
      if (!ControlPlaneInputError.isInstance(error)) throw error;
      return refuse(error.message);
    }
  } else {
    const answer = await recallThroughDaemon(daemon, request);
    if ('refused' in answer) return refuse(answer.refused);
    hits = answer.hits;
  }
  const tagged = options.tags.length === 0 ? '' : ` tagged ${options.tags.join(', ')}`;
  if (hits.length === 0) {
    io.stdout.write(`No page of agent ${agent.id}${tagged} matches ${JSON.stringify(query)}.\n`);
    return 0;
  }
  io.stdout.write(
    `${hits.length} page${hits.length === 1 ? '' : 's'} of agent ${agent.id}${tagged} for ${JSON.stringify(query)}, best first:\n`,
  );
  for (const hit of hits) io.stdout.write(`- ${describeHit(hit)}\n`);
  return 0;
}
