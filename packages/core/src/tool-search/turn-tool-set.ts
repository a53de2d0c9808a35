import { ToolDefinitionError } from '../errors/tool-definition-error';
import {
  collectToolSchemas,
  type ResponsesToolSchema,
  type ToolSearchMode,
} from '../schema/collect-tool-schemas';
import { agentToolMap, toolKey } from '../tool/agent-tool-map';
import type { AnyWorkerAgentTool } from '../tool/worker-agent-tool';
import { CLIENT_TOOL_SEARCH_NAME, createClientToolSearchTool } from './client-tool-search-tool';

/** Finds a turn's tool by its dispatch key (`name`, or `namespace.name`): what a call's lookup needs. */
export interface ToolLookup {
  /** The tool with this key, or `undefined` (an unknown tool). */
  get(key: string): AnyWorkerAgentTool | undefined;
  /** Every key, in the turn's order (an unknown tool's output lists them). */
  keys(): Iterable<string>;
}

/**
 * A turn's tool set as the loop uses it. It holds Tool Search's deferral state, so the loop does
 * not: which deferred tools are loaded, and the request `tools` they give.
 */
export interface TurnToolSet extends ToolLookup {
  /** How deferred tools are offered this turn (`turn-start` says it). */
  readonly toolSearch: ToolSearchMode;
  /** Tools the caller gave (deferred ones included, core's own `tool_search` not). */
  readonly toolCount: number;
  /** The `tools` array of the next model request: collected again only after a load. */
  requestTools(): readonly ResponsesToolSchema[];
  /** A call to `key` is about to run: a deferred tool called by its name is loaded, as if searched. */
  dispatching(key: string): void;
  /** A call's result loaded these keys (`loadsTools`): the deferred ones among them are loaded. */
  loaded(keys: readonly string[]): void;
}

class DeferringToolSet implements TurnToolSet {
  readonly toolSearch: ToolSearchMode;
  readonly toolCount: number;
  readonly #tools: readonly AnyWorkerAgentTool[];
  readonly #byKey: ReadonlyMap<string, AnyWorkerAgentTool>;
  // Keys of the deferred tools left out until loaded; empty unless client-side search left any out.
  readonly #deferredKeys: ReadonlySet<string>;
  readonly #loadedKeys = new Set<string>();
  #requestTools: readonly ResponsesToolSchema[] = [];
  #stale = true;

  constructor(tools: readonly AnyWorkerAgentTool[], toolSearch: ToolSearchMode) {
    this.toolSearch = toolSearch;
    this.toolCount = tools.length;
    const deferred = tools.filter((tool) => tool.deferLoading === true);
    const clientSearch = toolSearch === 'client' && deferred.length > 0;
    if (clientSearch && tools.some((tool) => toolKey(tool) === CLIENT_TOOL_SEARCH_NAME)) {
      throw new ToolDefinitionError({
        toolName: CLIENT_TOOL_SEARCH_NAME,
        field: 'name',
        message: `a tool is named '${CLIENT_TOOL_SEARCH_NAME}', which client-side Tool Search needs for itself`,
      });
    }
    this.#deferredKeys = new Set(clientSearch ? deferred.map(toolKey) : []);
    // The tools as the model sees them: the caller's, then core's own `tool_search`, which searches
    // the deferred tools not loaded yet.
    this.#tools = clientSearch ? [...tools, createClientToolSearchTool(deferred, this.#loadedKeys)] : tools;
    this.#byKey = agentToolMap(this.#tools);
  }

  get(key: string): AnyWorkerAgentTool | undefined {
    return this.#byKey.get(key);
  }

  keys(): Iterable<string> {
    return this.#byKey.keys();
  }

  requestTools(): readonly ResponsesToolSchema[] {
    if (this.#stale) {
      // Collected again only when the loaded set changes: the schemas themselves are cached in core.
      this.#requestTools = collectToolSchemas(this.#tools, {
        toolSearch: this.toolSearch,
        loadedTools: this.#loadedKeys,
      }).tools;
      this.#stale = false;
    }
    return this.#requestTools;
  }

  dispatching(key: string): void {
    this.#load(key);
  }

  loaded(keys: readonly string[]): void {
    for (const key of keys) this.#load(key);
  }

  #load(key: string): void {
    if (this.#deferredKeys.has(key) && !this.#loadedKeys.has(key)) {
      this.#loadedKeys.add(key);
      this.#stale = true;
    }
  }
}

/**
 * Builds a turn's tool set. With client-side Tool Search (`'client'`, and any deferred tool) the
 * deferred tools are left out of the requests and core's `tool_search` tool is added; a deferred
 * tool is sent from the request after a call loaded it (a search, any result's `loadsTools`, or a
 * call to it by its name). With native search every tool is sent, deferred ones with
 * `defer_loading`, and loading changes nothing.
 *
 * Contract: throws `ToolDefinitionError` for two tools with one key, or a tool named `tool_search`
 * with client-side Tool Search.
 */
export function createTurnToolSet(
  tools: readonly AnyWorkerAgentTool[],
  toolSearch: ToolSearchMode,
): TurnToolSet {
  return new DeferringToolSet(tools, toolSearch);
}
