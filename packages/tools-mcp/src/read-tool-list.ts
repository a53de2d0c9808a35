import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type ListToolsResult, ListToolsResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpSkippedTool } from './mcp-server-connection';
import { shownToolName } from './mcp-tool-name';

/** What `readToolList` needs. */
export interface ReadToolListOptions {
  /** The connected client. */
  client: Client;
  /** The configured server name. */
  server: string;
  /** Most pages read. */
  maxToolListPages: number;
  /** Most tools read (kept or left out for their size). */
  maxTools: number;
  /** Most bytes of definitions kept, in list order. */
  maxSchemaBytes: number;
  /** Bytes of `maxSchemaBytes` already taken (the namespace description). Default 0. */
  reservedBytes?: number;
  /**
   * The tools of the page just read as they arrived on the wire, by name (the SDK's parse reorders
   * keys); `startPage` is called before each page is asked for, so that only one page is held.
   */
  pageOnWire: { startPage(): void; get(name: string): Record<string, unknown> | undefined };
  /** Fires when the whole listing must end (its deadline, the server closed). */
  signal: AbortSignal;
  /** The time one page may take, in ms. */
  pageTimeoutMs: number;
}

/** One tool kept. */
export interface ListedTool {
  /** As the SDK parsed it. */
  tool: Tool;
  /** As it arrived, when it was seen (its `inputSchema` is sent to the model unchanged). */
  wire: Record<string, unknown> | undefined;
  /** Its definition as JSON (the wire form when known): what its size was counted on. */
  definition: string;
}

/** The tools read, and what the limits left out. */
export interface ToolList {
  /** The tools kept, in the server's order. */
  tools: ListedTool[];
  /** An `over-budget` entry for each tool (or run of pages) a limit left out. */
  skipped: McpSkippedTool[];
}

/**
 * Reads a server's `tools/list`, page after page, within its limits: `maxToolListPages` pages (a
 * server whose every page has a `nextCursor` ends the listing there instead of holding it, and the
 * worker's memory, forever), `maxTools` tools, and `maxSchemaBytes` of definitions, kept in list order
 * (a tool that would pass the bytes is left out; later, smaller ones may still fit). A tool left out is
 * dropped as its page is read, so at most one page and the kept tools are held.
 *
 * Asks with a plain request rather than `client.listTools`, which compiles a validator for every
 * tool's `outputSchema` on the spot (untrusted schemas, compiled in time that grows faster than their
 * size, for results whose structured part never reaches the model).
 *
 * Contract: rejects when a page fails (a JSON-RPC error, a page over `maxMessageBytes`, the signal);
 * every limit that left tools out has `over-budget` entries naming the server and the limit.
 */
export async function readToolList(options: ReadToolListOptions): Promise<ToolList> {
  const { client, server, maxToolListPages, maxTools, maxSchemaBytes, pageOnWire } = options;
  const tools: ListedTool[] = [];
  const skipped: McpSkippedTool[] = [];
  let read = 0;
  let bytes = options.reservedBytes ?? 0;
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    if (page > maxToolListPages) {
      skipped.push({
        server,
        tool: '*',
        kind: 'over-budget',
        reason: `MCP server '${server}' lists its tools on more than ${maxToolListPages} pages (maxToolListPages); the tools of the first ${maxToolListPages} pages are offered, the rest were not read.`,
      });
      break;
    }
    pageOnWire.startPage();
    const result = await readPage(client, cursor, options.signal, options.pageTimeoutMs);
    // The page was parsed and checked in the turn that read it: measuring it waits for the next.
    await new Promise((resolve) => setImmediate(resolve));
    for (const tool of result.tools) {
      const shown = shownToolName(tool.name);
      if (read === maxTools) {
        skipped.push({
          server,
          tool: shown,
          kind: 'over-budget',
          reason: `MCP server '${server}' lists more than ${maxTools} tools (maxTools); '${shown}' and every tool after it are left out.`,
        });
        break;
      }
      read += 1;
      const wire = pageOnWire.get(tool.name);
      const definition = JSON.stringify(wire ?? tool);
      const size = Buffer.byteLength(definition);
      if (bytes + size > maxSchemaBytes) {
        skipped.push({
          server,
          tool: shown,
          kind: 'over-budget',
          reason: `Tool '${shown}' has a definition of ${size} bytes; with the ${bytes} bytes of the tools kept before it, that passes MCP server '${server}''s maxSchemaBytes of ${maxSchemaBytes}.`,
        });
        continue;
      }
      bytes += size;
      tools.push({ tool, wire, definition });
    }
    cursor = result.nextCursor;
    pageOnWire.startPage();
    if (cursor === undefined) break;
    if (read === maxTools) {
      if (skipped.at(-1)?.reason.includes('(maxTools)') !== true) {
        skipped.push({
          server,
          tool: '*',
          kind: 'over-budget',
          reason: `MCP server '${server}' lists more than ${maxTools} tools (maxTools); the tools after page ${page} were not read.`,
        });
      }
      break;
    }
  }
  return { tools, skipped };
}

// The SDK adds a listener to a request's signal and never removes it: each page gets a signal of its
// own, so a long listing does not pile listeners on the listing's.
async function readPage(
  client: Client,
  cursor: string | undefined,
  signal: AbortSignal,
  timeout: number,
): Promise<ListToolsResult> {
  signal.throwIfAborted();
  const page = new AbortController();
  const forward = () => page.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await client.request(
      { method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) },
      ListToolsResultSchema,
      { signal: page.signal, timeout },
    );
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
