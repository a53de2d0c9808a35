import {
  type AnyWorkerAgentTool,
  isPlainObject,
  type JSONSchemaObject,
  ToolDefinitionError,
} from '@switchyard/core';
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

/**
 * Defines a worker tool for each MCP tool `readToolList` kept; tools the SDK refuses a plain call to
 * (task-required) and tools core refuses to define are left out. The event loop gets a turn every
 * few ms.
 *
 * Contract: resolves `undefined` when `isCurrent()` turned false meanwhile; otherwise every tool is
 * either in `tools` or has one entry in `skipped` naming the reason.
 */
export async function defineServerTools(options: DefineServerToolsOptions): Promise<ServerTools | undefined> {
  const { server, listed, previous, shared } = options;
  const taken = new Set<string>();
  const byDefinition = new Map<string, AnyWorkerAgentTool>();
  const tools: AnyWorkerAgentTool[] = [];
  const skipped: McpSkippedTool[] = [];
  let sliceStart = performance.now();
  for (const { tool, wire, definition } of listed) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      if (!options.isCurrent()) return undefined;
      sliceStart = performance.now();
    }
    const shownName = shownToolName(tool.name);
    const name = toWorkerToolName(tool.name, taken);
    taken.add(name);
    if (tool.execution?.taskSupport === 'required') {
      // The SDK refuses a plain tools/call to such a tool (-32600) and its task API is experimental:
      // offering the tool would only teach the model a call that always fails.
      skipped.push({
        server,
        tool: shownName,
        kind: 'task-required',
        reason: `Tool '${shownName}' runs only as an MCP task (execution.taskSupport: "required"), which this client does not support; a plain call would always fail.`,
      });
      continue;
    }
    const inputSchema =
      isPlainObject(wire?.inputSchema) && wire.inputSchema.type === 'object'
        ? (wire.inputSchema as JSONSchemaObject)
        : (tool.inputSchema as JSONSchemaObject);
    const key = `${name}\u0000${shared.namespaceDescription ?? ''}\u0000${definition}`;
    let worker = previous.get(key);
    try {
      worker ??= createMcpWorkerTool({ server, name, tool, inputSchema, ...shared });
    } catch (error) {
      // One tool whose schema core cannot compile (an unresolvable $ref, ...) must not take
      // the server's other tools down with it.
      if (!ToolDefinitionError.isInstance(error)) throw error;
      skipped.push({ server, tool: shownName, kind: 'invalid-definition', reason: error.message });
      continue;
    }
    byDefinition.set(key, worker);
    tools.push(worker);
  }
  return { tools, skipped, byDefinition };
}
