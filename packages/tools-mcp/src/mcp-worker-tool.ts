import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentToolResult } from '@switchyard/core';
import {
  type AnyWorkerAgentTool,
  defineWorkerTool,
  type JSONSchemaObject,
  type ToolExecutionContext,
} from '@switchyard/core';
import type { McpToolCallDetails } from './mcp-tool-result';

/** What `createMcpWorkerTool` needs. */
export interface McpWorkerToolOptions {
  /** The configured server name: the tool's namespace. */
  server: string;
  /** The worker tool name (the MCP name made valid, see `toWorkerToolName`). */
  name: string;
  /** The tool as the SDK parsed it. */
  tool: Tool;
  /** The tool's `inputSchema` exactly as it arrived on the wire (key order included). */
  inputSchema: JSONSchemaObject;
  /** The server's namespace description, when it has one. */
  namespaceDescription: string | undefined;
  /** Keep the schema behind Tool Search. */
  deferLoading: boolean;
  /**
   * `'auto'`: send the schema's strict projection when it has one (constraints strict mode does not
   * take move into descriptions; the server's schema still validates every call). Default: the
   * schema is sent unchanged.
   */
  strict?: 'auto';
  /** Runs the call on the server. */
  call(
    mcpName: string,
    params: Record<string, unknown>,
    context: ToolExecutionContext,
  ): Promise<AgentToolResult<McpToolCallDetails>>;
}

/**
 * One MCP tool as a worker tool: the server's `inputSchema` as `jsonSchema` (the same object), the
 * server name as `namespace`, `readOnlyHint`/`destructiveHint` as `isReadOnly`/`isDestructive` (MCP's
 * defaults: not read-only, and destructive unless read-only or `destructiveHint: false`), read-only
 * tools `parallel` and the rest `sequential`.
 *
 * Contract: a tool that declares `destructiveHint: true` is destructive, and then not read-only,
 * whatever else it declares: annotations are the server's claims, and of two that contradict each
 * other the one that asks for more care wins (a destructive call is held by an approval policy; a
 * read-only one runs in parallel and is run again when a continued turn finds it in doubt).
 */
export function createMcpWorkerTool(options: McpWorkerToolOptions): AnyWorkerAgentTool {
  const { server, name, tool } = options;
  const label = `${server}.${name}`;
  const declaresDestructive = tool.annotations?.destructiveHint === true;
  const isReadOnly = tool.annotations?.readOnlyHint === true && !declaresDestructive;
  const isDestructive = declaresDestructive || (!isReadOnly && tool.annotations?.destructiveHint !== false);
  const description =
    tool.description?.trim() ||
    tool.title?.trim() ||
    tool.annotations?.title?.trim() ||
    `The ${tool.name} tool of the ${server} MCP server.`;
  // A JSON-Schema tool: arguments are validated by Ajv against the server's own schema (and again by
  // the server); no Zod runs, so `execute` gets the arguments object as it passed validation.
  return defineWorkerTool<Record<string, unknown>, McpToolCallDetails>({
    name,
    description,
    jsonSchema: options.inputSchema,
    namespace: server,
    ...(options.namespaceDescription === undefined
      ? {}
      : { namespaceDescription: options.namespaceDescription }),
    ...(options.deferLoading ? { deferLoading: true } : {}),
    ...(options.strict === 'auto' ? { strict: 'auto' as const } : {}),
    executionMode: isReadOnly ? 'parallel' : 'sequential',
    isReadOnly,
    isDestructive,
    describeActivity: () => `Calling ${label}`,
    describeCompletedActivity: (_params, result) => {
      if (!result.isError) return `Called ${label}`;
      switch (result.details?.failure) {
        case 'cancelled':
          return `Cancelled ${label}`;
        case 'timeout':
          return `${label} timed out`;
        case 'server-exited':
        case 'server-unavailable':
          return `${label} failed: server unavailable`;
        default:
          return `${label} failed`;
      }
    },
    execute: (params, context) => options.call(tool.name, params, context),
  });
}
