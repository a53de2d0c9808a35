import type { FunctionToolSchema } from '../schema/collect-tool-schemas';
import type { AgentToolResult, AnyWorkerAgentTool } from '../tool/worker-agent-tool';
import { createToolSearchIndex } from './client-tool-search';

/** The name of the function tool client-side Tool Search adds. */
export const CLIENT_TOOL_SEARCH_NAME = 'tool_search';

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

/** Client-side Tool Search for one turn: its function tool schema and its handler. */
export interface ClientToolSearch {
  /** The `tool_search` function tool sent with every request while the turn has deferred tools. */
  readonly schema: FunctionToolSchema;
  /** Runs one `tool_search` call: ranks the deferred tools not loaded yet and loads the best. */
  run(rawArguments: string): {
    result: AgentToolResult<{ query: string; loaded: string[] }>;
    loaded: string[];
  };
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
 * Builds the `tool_search` function tool of client-side Tool Search over a turn's deferred tools.
 * A call ranks the deferred tools not loaded yet (BM25 over name, description and namespace
 * description) and loads the best matches; `isLoaded`/`load` keep the turn's loaded set.
 *
 * Contract: a malformed call becomes an `isError` result the model can act on; never throws.
 */
export function createClientToolSearch(
  deferred: readonly AnyWorkerAgentTool[],
  loadedKeys: ReadonlySet<string>,
): ClientToolSearch {
  const index = createToolSearchIndex(deferred);
  const schema: FunctionToolSchema = {
    type: 'function',
    name: CLIENT_TOOL_SEARCH_NAME,
    description: `Search the tools that are not loaded yet and load the best matches, callable from your next step. Describe the capability you need in a few keywords. Tools available through search: ${describeGroups(deferred)}.`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Keywords for the capability you need' },
        limit: {
          type: ['integer', 'null'],
          description: `Most tools to load (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
        },
      },
      required: ['query', 'limit'],
      additionalProperties: false,
    },
    strict: true,
  };
  return {
    schema,
    run(rawArguments) {
      let query: unknown;
      let limit: unknown;
      try {
        ({ query, limit } = JSON.parse(rawArguments) as { query?: unknown; limit?: unknown });
      } catch {
        query = undefined;
      }
      if (typeof query !== 'string' || query.trim() === '') {
        return {
          result: {
            content: `Invalid arguments for tool '${CLIENT_TOOL_SEARCH_NAME}': expected {"query": "<keywords>"}, got ${rawArguments}`,
            isError: true,
          },
          loaded: [],
        };
      }
      const count =
        typeof limit === 'number' && Number.isInteger(limit) && limit > 0
          ? Math.min(limit, MAX_LIMIT)
          : DEFAULT_LIMIT;
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
      return { result: { content, details: { query, loaded } }, loaded };
    },
  };
}
