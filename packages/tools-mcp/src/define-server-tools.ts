import { type AnyWorkerAgentTool, type JSONSchemaObject, ToolDefinitionError } from '@switchyard/core';
import { isPlainObject, precompileJSONSchemas } from '@switchyard/core/internal';
import type { McpSkippedTool } from './mcp-server-connection';
import { shownToolName, toWorkerToolName } from './mcp-tool-name';
import { createMcpWorkerTool, type McpWorkerToolOptions } from './mcp-worker-tool';
import type { ListedTool } from './read-tool-list';

/** What `defineServerTools` needs. */
export interface DefineServerToolsOptions {
  /** The configured server name. */
  server: string;
  /** The tools kept by `readToolList`, in the server's order. */
  listed: readonly ListedTool[];
  /** The worker tools of the previous list, by definition: an unchanged tool keeps its object. */
  previous: ReadonlyMap<string, AnyWorkerAgentTool>;
  /** The fields every tool of the server shares. */
  shared: Pick<McpWorkerToolOptions, 'namespaceDescription' | 'deferLoading' | 'strict' | 'call'>;
  /** False once the list is stale (the server restarted or closed meanwhile): the work stops. */
  isCurrent(): boolean;
  /** Fires when the listing's deadline passes: schemas not yet compiled are refused. */
  signal?: AbortSignal;
}

/** The server's worker tools, and those left out. */
export interface ServerTools {
  tools: AnyWorkerAgentTool[];
  skipped: McpSkippedTool[];
  /** The tools by definition, for the next list. */
  byDefinition: Map<string, AnyWorkerAgentTool>;
}

/**
 * How long definitions run before the event loop gets a turn, in ms. Compiling a schema for
 * validation takes time that grows faster than its size, so a long list is defined in slices.
 */
const SLICE_MS = 10;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One listed tool on its way to a worker tool (or to `skipped`). */
interface Pending {
  tool: ListedTool['tool'];
  shownName: string;
  name: string;
  inputSchema: JSONSchemaObject;
  key: string;
  worker: AnyWorkerAgentTool | undefined;
  skip: McpSkippedTool | undefined;
}

/**
 * Defines a worker tool for each MCP tool `readToolList` kept; tools the SDK refuses a plain call to
 * (task-required) and tools whose input schema core cannot (or may not, for its cost) compile are
 * left out. Schemas are compiled in a worker thread first (`precompileJSONSchemas`: Ajv's compile
 * time grows faster than a schema's size, and the server picks the schemas); what runs here is
 * linear, and the event loop gets a turn every few ms.
 *
 * Contract: resolves `undefined` when `isCurrent()` turned false meanwhile; otherwise every tool is
 * either in `tools` or has one entry in `skipped` naming the reason, in list order.
 */
export async function defineServerTools(options: DefineServerToolsOptions): Promise<ServerTools | undefined> {
  const { server, listed, previous, shared } = options;
  const taken = new Set<string>();
  const pending: Pending[] = [];
  for (const { tool, wire, definition } of listed) {
    const shownName = shownToolName(tool.name);
    const name = toWorkerToolName(tool.name, taken);
    taken.add(name);
    const inputSchema =
      isPlainObject(wire?.inputSchema) && wire.inputSchema.type === 'object'
        ? (wire.inputSchema as JSONSchemaObject)
        : (tool.inputSchema as JSONSchemaObject);
    const key = `${name}\u0000${shared.namespaceDescription ?? ''}\u0000${definition}`;
    // The SDK refuses a plain tools/call to a task-only tool (-32600) and its task API is
    // experimental: offering the tool would only teach the model a call that always fails.
    const skip: McpSkippedTool | undefined =
      tool.execution?.taskSupport === 'required'
        ? {
            server,
            tool: shownName,
            kind: 'task-required',
            reason: `Tool '${shownName}' runs only as an MCP task (execution.taskSupport: "required"), which this client does not support; a plain call would always fail.`,
          }
        : undefined;
    pending.push({ tool, shownName, name, inputSchema, key, worker: previous.get(key), skip });
  }

  const toCompile = pending.filter((entry) => entry.skip === undefined && entry.worker === undefined);
  const outcomes = await precompileJSONSchemas(
    toCompile.map((entry) => entry.inputSchema),
    { signal: options.signal },
  );
  if (!options.isCurrent()) return undefined;
  for (const [index, entry] of toCompile.entries()) {
    const outcome = outcomes[index];
    if (outcome === undefined || outcome.ok) continue;
    const refused = new ToolDefinitionError({
      toolName: entry.name,
      field: 'jsonSchema',
      message: outcome.reason,
    });
    entry.skip = {
      server,
      tool: entry.shownName,
      kind: outcome.refusal === 'invalid' ? 'invalid-definition' : 'over-budget',
      reason: refused.message,
    };
  }

  const byDefinition = new Map<string, AnyWorkerAgentTool>();
  const tools: AnyWorkerAgentTool[] = [];
  const skipped: McpSkippedTool[] = [];
  let sliceStart = performance.now();
  for (const entry of pending) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      if (!options.isCurrent()) return undefined;
      sliceStart = performance.now();
    }
    if (entry.skip !== undefined) {
      skipped.push(entry.skip);
      continue;
    }
    const { tool, name, inputSchema } = entry;
    try {
      entry.worker ??= createMcpWorkerTool({ server, name, tool, inputSchema, ...shared });
    } catch (error) {
      if (!ToolDefinitionError.isInstance(error)) throw error;
      skipped.push({ server, tool: entry.shownName, kind: 'invalid-definition', reason: error.message });
      continue;
    }
    byDefinition.set(entry.key, entry.worker);
    tools.push(entry.worker);
  }
  return { tools, skipped, byDefinition };
}
