import { z } from 'zod';
import { defineWorkerTool } from '../tool/define-worker-tool';
import type { AnyWorkerAgentTool, WorkerAgentTool } from '../tool/worker-agent-tool';
import { createToolSearchIndex } from './client-tool-search';

/** The name of the function tool client-side Tool Search adds. */
export const CLIENT_TOOL_SEARCH_NAME = 'tool_search';

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

// Module-level, so its conversion is cached across turns. Written so the strict projection gives
// the very bytes the model has always seen: `limit` optional (sent as `["integer", "null"]`, a null
// restored to absent), the blank-query check a refinement that adds nothing to the JSON Schema.
const toolSearchSchema = z.object({
  query: z
    .string()
    .refine((query) => query.trim() !== '', {
      message: 'must name the capability you need in a few keywords',
    })
    .describe('Keywords for the capability you need'),
  limit: z.int().describe(`Most tools to load (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`).optional(),
});

/** The parameters of a `tool_search` call, once validated. */
export type ClientToolSearchParams = z.output<typeof toolSearchSchema>;

/** What a `tool_search` result carries in `details`. */
export interface ClientToolSearchDetails {
  /** The query searched for. */
  query: string;
  /** Keys (`toolKey`) of the tools it loaded, best first. */
  loaded: string[];
}

function describeGroups(deferred: readonly AnyWorkerAgentTool[]): string {
  const groups = new Map<string, string>();
  let loose = 0;
  for (const tool of deferred) {
    if (tool.namespace === undefined) loose += 1;
    else if (!groups.has(tool.namespace) || tool.namespaceDescription !== undefined) {
      groups.set(tool.namespace, tool.namespaceDescription ?? groups.get(tool.namespace) ?? '');
    }
  }
  const parts = [...groups].map(([name, description]) => (description ? `${name} (${description})` : name));
  if (loose > 0) parts.push(`${loose} tool${loose === 1 ? '' : 's'} outside any group`);
  return parts.join('; ');
}

/**
 * Builds the `tool_search` tool of client-side Tool Search over a turn's deferred tools: an
 * ordinary worker tool (its arguments go through the repair ladder and its Zod schema like any
 * tool's). A call ranks the deferred tools not in `loadedKeys` (BM25 over name, description and
 * namespace description) and returns the best matches in the result's `loadsTools`, which the loop
 * sends from the next request on.
 *
 * Contract: never throws once built; a search that matches nothing is an ordinary result saying so.
 */
export function createClientToolSearchTool(
  deferred: readonly AnyWorkerAgentTool[],
  loadedKeys: ReadonlySet<string>,
): WorkerAgentTool<ClientToolSearchParams, ClientToolSearchDetails> {
  const index = createToolSearchIndex(deferred);
  return defineWorkerTool({
    name: CLIENT_TOOL_SEARCH_NAME,
    description: `Search the tools that are not loaded yet and load the best matches, callable from your next step. Describe the capability you need in a few keywords. Tools available through search: ${describeGroups(deferred)}.`,
    schema: toolSearchSchema,
    // Ranking a few hundred short documents costs nothing: it never needs to wait for a batch.
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: ({ query }) => `Searching tools for "${query}"`,
    describeCompletedActivity: ({ query }) => `Searched tools for "${query}"`,
    execute: ({ query, limit }) => {
      // Out-of-range limits fall back rather than fail: the model asked for "some tools" either way.
      const count = limit !== undefined && limit > 0 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT;
      const hits = index.search(query, count, loadedKeys);
      const loaded = hits.map((hit) => hit.key);
      const content =
        hits.length === 0
          ? `No tool that is not loaded yet matched "${query}". Try other keywords.`
          : `Loaded ${hits.length} tool${hits.length === 1 ? '' : 's'}, callable from your next step:\n${hits
              .map(
                ({ tool }) =>
                  `- ${tool.name}${tool.namespace === undefined ? '' : ` (namespace ${tool.namespace})`}: ${tool.description}`,
              )
              .join('\n')}`;
      return { content, details: { query, loaded }, loadsTools: loaded };
    },
  });
}
