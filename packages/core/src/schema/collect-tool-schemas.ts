import { agentToolMap, toolKey } from '../tool/agent-tool-map';
import type { AnyWorkerAgentTool, JSONSchemaObject } from '../tool/worker-agent-tool';
import { resolveToolParameters } from './tool-parameters';

/** A Responses function tool, as sent. */
export interface FunctionToolSchema {
  type: 'function';
  name: string;
  description: string;
  parameters: JSONSchemaObject;
  strict: boolean;
  defer_loading?: boolean;
}

/** A Responses namespace grouping the function tools of one namespace. */
export interface NamespaceToolSchema {
  type: 'namespace';
  name: string;
  description: string;
  tools: FunctionToolSchema[];
}

/** OpenAI's hosted Tool Search, sent when deferred tools exist and `toolSearch` is `'native'`. */
export interface ToolSearchToolSchema {
  type: 'tool_search';
}

/** One entry of the Responses `tools` array. */
export type ResponsesToolSchema = FunctionToolSchema | NamespaceToolSchema | ToolSearchToolSchema;

/** How deferred tools are offered. */
export type ToolSearchMode = 'native' | 'client';

/** Options of `collectToolSchemas`. */
export interface CollectToolSchemasOptions {
  /**
   * `'native'` (default): deferred tools are sent with `defer_loading: true` plus one `tool_search`
   * tool. `'client'`: deferred tools are left out until loaded (see `loadedTools`); the loop offers
   * its own search tool.
   */
  toolSearch?: ToolSearchMode;
  /** With `'client'` search: keys (`toolKey`) of deferred tools already selected this turn. */
  loadedTools?: ReadonlySet<string>;
}

/** What the manifest says about one tool. */
export interface ToolSchemaEntry {
  /** The tool's name. */
  name: string;
  /** Its namespace, if any. */
  namespace?: string;
  /** Dispatch key: `name` or `namespace.name`. */
  key: string;
  /** Sent with `strict: true`. */
  strict: boolean;
  /**
   * Why a tool that did not opt out of strict mode is sent non-strict. Every non-strict tool has
   * one unless it said `strict: false`; an external schema sent as it is reads
   * `external schema sent unchanged`.
   */
  fallbackReason?: string;
  /**
   * Present on a strict tool whose projection moved constraints strict mode does not take into
   * descriptions (`minLength at /properties/q`); validation still enforces them.
   */
  movedKeywords?: string[];
  /** Kept behind Tool Search. */
  deferred: boolean;
  /** Part of this request's `tools` (false for a deferred tool not yet loaded in client mode). */
  sent: boolean;
  /** The parameters come from the tool's external `jsonSchema`: unchanged, or projected (`strict: 'auto'`). */
  external: boolean;
  /** UTF-8 bytes of the function tool's JSON. */
  readonly bytes: number;
  /** The schema came from the cache: no conversion work this collection. */
  cached: boolean;
}

/** The tools of one request and what went into them. */
export interface ToolSchemaManifest {
  /** The Responses `tools` array. */
  tools: ResponsesToolSchema[];
  /** One entry per tool, in tool-set order. */
  entries: ToolSchemaEntry[];
  /** UTF-8 bytes of the whole `tools` array's JSON. */
  readonly bytes: number;
}

interface CachedTool {
  eager: FunctionToolSchema;
  deferred: FunctionToolSchema;
  strict: boolean;
  fallbackReason: string | undefined;
  movedKeywords: readonly string[];
  external: boolean;
  /** UTF-8 bytes of `eager`, measured on first read. */
  bytes: number | undefined;
}

const toolCache = new WeakMap<AnyWorkerAgentTool, CachedTool>();

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

// Serializing a schema only to count its bytes is work the request does not need: a tool set
// composed anew each turn would pay one extra JSON.stringify per tool before its first request.
function cachedBytes(cached: CachedTool): number {
  cached.bytes ??= byteLength(cached.eager);
  return cached.bytes;
}

function describeTool(tool: AnyWorkerAgentTool): { cached: CachedTool; hit: boolean } {
  const hit = toolCache.get(tool);
  if (hit) return { cached: hit, hit: true };
  const parameters = resolveToolParameters(tool);
  const eager: FunctionToolSchema = {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: parameters.parameters,
    strict: parameters.strict,
  };
  const cached: CachedTool = {
    eager,
    deferred: { ...eager, defer_loading: true },
    strict: parameters.strict,
    fallbackReason: parameters.fallbackReason,
    movedKeywords: parameters.movedKeywords,
    external: parameters.external,
    bytes: undefined,
  };
  toolCache.set(tool, cached);
  return { cached, hit: false };
}

/**
 * Builds the Responses `tools` array for one request, with a manifest entry per tool.
 *
 * Function tools carry `strict`; tools sharing a `namespace` are grouped into one namespace tool
 * (placed where the first of them stands); deferred tools follow `options.toolSearch`. A tool's
 * external `jsonSchema` is the very object sent, so it serializes byte-for-byte unchanged, unless
 * the tool asks for `strict: 'auto'` (then its strict projection is sent).
 * Conversion is cached per tool object (and per Zod schema object): collecting the same tools on
 * the next turn converts nothing.
 *
 * Contract: throws `ToolDefinitionError` when two tools share a dispatch key.
 *
 * @example
 * const manifest = collectToolSchemas([readNote, ...mcpTools], { toolSearch: 'native' });
 * await client.responses.create({ model, input, tools: manifest.tools });
 */
export function collectToolSchemas(
  tools: readonly AnyWorkerAgentTool[],
  options: CollectToolSchemasOptions = {},
): ToolSchemaManifest {
  agentToolMap(tools);
  const toolSearch = options.toolSearch ?? 'native';
  const result: ResponsesToolSchema[] = [];
  const entries: ToolSchemaEntry[] = [];
  const namespaces = new Map<string, NamespaceToolSchema>();
  let anyDeferredSent = false;

  for (const tool of tools) {
    const { cached, hit } = describeTool(tool);
    const key = toolKey(tool);
    const deferred = tool.deferLoading === true;
    const loaded = toolSearch === 'client' && deferred && options.loadedTools?.has(key) === true;
    const sent = !deferred || toolSearch === 'native' || loaded;
    entries.push({
      name: tool.name,
      ...(tool.namespace === undefined ? {} : { namespace: tool.namespace }),
      key,
      strict: cached.strict,
      ...(cached.fallbackReason === undefined ? {} : { fallbackReason: cached.fallbackReason }),
      ...(cached.movedKeywords.length === 0 ? {} : { movedKeywords: [...cached.movedKeywords] }),
      deferred,
      sent,
      external: cached.external,
      get bytes() {
        return cachedBytes(cached);
      },
      cached: hit,
    });
    if (!sent) continue;
    const schema = deferred && toolSearch === 'native' ? cached.deferred : cached.eager;
    if (deferred && toolSearch === 'native') anyDeferredSent = true;
    if (tool.namespace === undefined) {
      result.push(schema);
      continue;
    }
    let group = namespaces.get(tool.namespace);
    if (!group) {
      group = { type: 'namespace', name: tool.namespace, description: '', tools: [] };
      namespaces.set(tool.namespace, group);
      result.push(group);
    }
    if (group.description === '' && tool.namespaceDescription !== undefined) {
      group.description = tool.namespaceDescription;
    }
    group.tools.push(schema);
  }
  for (const group of namespaces.values()) {
    if (group.description === '') group.description = `Tools of ${group.name}`;
  }
  if (anyDeferredSent) result.push({ type: 'tool_search' });
  let bytes: number | undefined;
  return {
    tools: result,
    entries,
    // Measured on demand: serializing every schema is work the loop's hot path does not need.
    get bytes() {
      bytes ??= byteLength(result);
      return bytes;
    },
  };
}
