import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentToolResult, AnyWorkerAgentTool, ToolExecutionContext } from '@switchyard/core';
import { isPlainObject } from '@switchyard/core/internal';
import { callMetaFrom } from './call-meta';
import { defineServerTools } from './define-server-tools';
import { errorMessage } from './error-message';
import { McpConnectionError } from './errors/mcp-connection-error';
import { McpLimitError } from './errors/mcp-limit-error';
import {
  callCancelled,
  callFailed,
  callOverBudget,
  callPastDeadline,
  callTimedOut,
  serverLostDuringCall,
  serversClosed,
  serverUnavailable,
} from './mcp-call-results';
import type { ResolvedMcpServerConfig } from './mcp-server-config';
import { type McpToolCallDetails, toAgentToolResult } from './mcp-tool-result';
import { createProgressReporter } from './progress-reporter';
import { ProgressRoutes } from './progress-routes';
import { readToolList } from './read-tool-list';
import { createServerTransport } from './transport/create-server-transport';
import { limitErrorOf } from './transport/refused-response';

/**
 * Why an MCP tool was left out: `invalid-definition` when core refused its definition (a schema its
 * validator cannot compile, ...), `task-required` when the server allows it to run only as an MCP
 * task (`execution.taskSupport: "required"`), which this client does not do, `over-budget` when it
 * would take the server past `maxTools` or `maxSchemaBytes`, was on a page past `maxToolListPages`,
 * or its input schema is too costly to compile for validation (over 2 s, 1 MiB of code or 256
 * nested blocks: see core's `precompileJSONSchemas`).
 */
export type McpSkippedToolKind = 'invalid-definition' | 'task-required' | 'over-budget';

/** An MCP tool left out of the worker's tools, so the model is never offered a tool it cannot call. */
export interface McpSkippedTool {
  /** The configured server name. */
  server: string;
  /**
   * The tool's name on the server (cut at 128 characters); `*` for the tools of pages past
   * `maxToolListPages`, which were never read.
   */
  tool: string;
  /** Why, as a class. */
  kind: McpSkippedToolKind;
  /** Why, in words, e.g. `Invalid tool 'x': jsonSchema: cannot be compiled for validation: ...`. */
  reason: string;
}

/** Where a server stands: `unavailable` after it died and could not (or may no longer) be restarted. */
export type McpServerStatus = 'connected' | 'unavailable' | 'closed';

const STDERR_TAIL = 2000;

function keepCallAlive(): void {}

/** The most characters of a server's own instructions used as its namespace description. */
const MAX_SERVER_DESCRIPTION_CHARACTERS = 4000;

// A server's instructions go into every request as its namespace's description, so they are cut
// (and counted toward `maxSchemaBytes` with the tools).
function serverDescription(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  return text.length <= MAX_SERVER_DESCRIPTION_CHARACTERS
    ? text
    : `${text.slice(0, MAX_SERVER_DESCRIPTION_CHARACTERS)}…`;
}

/**
 * One configured MCP server: its client, its current worker tools, and what happens when it dies.
 * Internal: the public handle is `McpServers`.
 */
export class McpServerConnection {
  readonly name: string;
  readonly config: ResolvedMcpServerConfig;
  /** The current worker tools, replaced (not mutated) when the server's tool list changes. */
  tools: readonly AnyWorkerAgentTool[] = [];
  /** Tools of the current list left out because core refused their definition. */
  skipped: readonly McpSkippedTool[] = [];

  private readonly clientInfo: { name: string; version: string };
  private client: Client | undefined;
  private state: McpServerStatus = 'unavailable';
  private generation = 0;
  private downReason = 'it is not connected';
  private reconnectsLeft = 1;
  private reconnecting: Promise<void> | undefined;
  // At most one listing runs and one waits: notifications that come meanwhile share the waiting one.
  private listing: Promise<void> | undefined;
  private nextListing: Promise<void> | undefined;
  // The limit that made the transport stop the server, for the reason its calls report.
  private limitFailure: McpLimitError | undefined;
  private stderrTail = '';
  private namespaceDescription: string | undefined;
  // The tools of the tools/list page being read, as they arrived on the wire: the SDK's own parse
  // reorders keys. Only one page is held (the listing clears it before and after each page).
  private readonly pageOnWire = new Map<string, Record<string, unknown>>();
  private toolCache = new Map<string, AnyWorkerAgentTool>();
  // One controller per running call, aborted when the server is found dead.
  private readonly inflight = new Set<AbortController>();
  private checking: Promise<void> | undefined;
  // Each client's progress routes (its transport's progress tokens are its own request ids).
  private readonly progressRoutes = new WeakMap<Client, ProgressRoutes>();
  // Clients whose connection closed: only for them is a `ConnectionClosed` error the SDK's own (a
  // server may answer a call with the same code, -32000, for its own reasons).
  private readonly closedClients = new WeakSet<Client>();

  constructor(
    name: string,
    config: ResolvedMcpServerConfig,
    clientInfo: { name: string; version: string },
    private readonly callMeta?: () => Record<string, string> | undefined,
  ) {
    this.name = name;
    this.config = config;
    this.clientInfo = clientInfo;
  }

  /** Where the server stands now. */
  get status(): McpServerStatus {
    return this.state;
  }

  /**
   * Starts (or restarts) the server, completes the handshake and reads its tool list.
   *
   * Contract: throws `McpConnectionError` naming the server, with the tail of its stderr, when any
   * of that fails or takes longer than `startupTimeoutMs`; the half-open client is closed first.
   */
  async open(): Promise<void> {
    this.generation += 1;
    const generation = this.generation;
    const transport = this.createTransport();
    const progressRoutes = new ProgressRoutes();
    // The SDK keeps (and chains) an onmessage handler set before connect; this one runs first, as
    // each message arrives, so progress reaches its call before the SDK handles a result after it.
    transport.onmessage = (message) => {
      progressRoutes.received(message);
      this.capture(message);
    };
    // The SDK sends through whatever `send` the transport has when it sends: a call's request names
    // the progress token its route is kept under.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      progressRoutes.sent(message);
      return send(message, options);
    };
    const client = new Client(this.clientInfo, { capabilities: {} });
    this.progressRoutes.set(client, progressRoutes);
    client.onclose = () => {
      this.closedClients.add(client);
      this.closed(generation);
    };
    client.onerror = (error) => {
      // A stdio transport reports the limit that made it stop the server just before it closes.
      if (McpLimitError.isInstance(error) && this.config.kind === 'stdio') this.limitFailure = error;
      this.transportError(generation);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (generation === this.generation && this.state === 'connected') {
        this.refreshTools().catch(() => {});
      }
    });
    const timeout = this.config.startupTimeoutMs;
    try {
      await client.connect(transport, { timeout });
      if (this.state === 'closed') throw new Error('the MCP servers were closed while it started');
      this.client = client;
      this.state = 'connected';
      const instructions = client.getInstructions()?.trim();
      const ownDescription = client.getServerVersion()?.description?.trim();
      this.namespaceDescription =
        this.config.description ?? serverDescription(instructions || ownDescription);
      await this.refreshTools(timeout);
    } catch (error) {
      this.client = undefined;
      if (this.state !== 'closed') {
        this.state = 'unavailable';
        this.downReason = `it failed to restart (${errorMessage(error)})`;
      }
      await client.close().catch(() => {});
      // stderr reaches its PassThrough a tick after the process closes.
      await new Promise((resolve) => setImmediate(resolve));
      throw new McpConnectionError({
        server: this.name,
        message: `${this.startFailure(error)} (${this.describeEndpoint()})${this.stderrNote()}`,
        cause: error,
      });
    }
  }

  /**
   * Re-reads the tool list; tool objects whose definition did not change are kept. While a listing
   * runs, every request for another shares one listing that starts when it ends: a server that sends
   * `list_changed` without pause costs one listing at a time, never a queue of them.
   */
  refreshTools(timeout?: number): Promise<void> {
    if (this.nextListing !== undefined) return this.nextListing;
    if (this.listing === undefined) {
      const listing = this.listTools(timeout).finally(() => {
        if (this.listing === listing) this.listing = undefined;
      });
      this.listing = listing;
      return listing;
    }
    const next = this.listing
      .catch(() => {})
      .then(() => {
        this.nextListing = undefined;
        return this.refreshTools(timeout);
      });
    this.nextListing = next;
    return next;
  }

  /** Calls one tool. Never throws: every failure becomes an `isError` result the model can read. */
  async call(
    mcpName: string,
    params: Record<string, unknown>,
    context: ToolExecutionContext,
  ): Promise<AgentToolResult<McpToolCallDetails>> {
    const details: McpToolCallDetails = { server: this.name, tool: mcpName };
    const label = `${this.name}.${mcpName}`;
    if (context.signal.aborted) return callCancelled(label, details, context.signal);
    const client = await this.usableClient(context.signal);
    if (context.signal.aborted) return callCancelled(label, details, context.signal);
    if (client === undefined) {
      return serverUnavailable(details, this.downReason);
    }
    const generation = this.generation;
    // One controller per call, fired by the turn's signal or by `lose()`. (AbortSignal.any would do,
    // but on Node 20 it is slow and keeps every call's signal alive as long as the turn's signal.)
    const call = new AbortController();
    const forwardAbort = () => call.abort(context.signal.reason);
    context.signal.addEventListener('abort', forwardAbort, { once: true });
    this.inflight.add(call);
    // The call's total limit, whatever progress it reports: a timer the call holds until it ends.
    let pastDeadline = false;
    const started = Date.now();
    const deadline = setTimeout(() => {
      pastDeadline = true;
      call.abort(new Error(`the call passed its callDeadlineMs of ${this.config.callDeadlineMs}`));
    }, this.config.callDeadlineMs);
    const progress = createProgressReporter(context);
    let closeProgressRoute = () => {};
    try {
      const meta = callMetaFrom(this.callMeta);
      const request = { name: mcpName, arguments: params, ...(meta === undefined ? {} : { _meta: meta }) };
      const routes = this.progressRoutes.get(client) ?? new ProgressRoutes();
      const opened = routes.open(progress.report, () =>
        client.callTool(request, undefined, {
          signal: call.signal,
          timeout: this.config.callTimeoutMs,
          resetTimeoutOnProgress: true,
          // Progress reaches the turn through the route opened above; an `onprogress` still makes
          // the SDK send a progress token and restart the call's idle timeout on each notification.
          onprogress: keepCallAlive,
        }),
      );
      closeProgressRoute = opened.close;
      const result = await opened.sending;
      progress.flush();
      return toAgentToolResult(result, details, { maxResultBytes: this.config.maxResultBytes });
    } catch (error) {
      if (context.signal.aborted) return callCancelled(label, details, context.signal);
      if (pastDeadline) return callPastDeadline(label, details, this.config.callDeadlineMs);
      const limit = limitErrorOf(error, this.name);
      if (limit !== undefined && this.client === client) return callOverBudget(label, details, limit);
      if (this.state === 'closed') return serversClosed(label, details);
      // An HTTP request that fails below MCP (fetch failed, session gone): is the server still there?
      if (this.config.kind === 'http' && !(error instanceof McpError)) await this.checkAlive(generation);
      // The SDK's own errors share their codes with what a server may answer (-32000, -32001): only
      // a closed connection, or a call as old as its time limit, is the SDK's.
      if (
        call.signal.aborted ||
        (error instanceof McpError &&
          error.code === ErrorCode.ConnectionClosed &&
          this.closedClients.has(client)) ||
        client !== this.client
      ) {
        return serverLostDuringCall(label, details, this.config.kind, this.downReason, this.stderrNote());
      }
      if (
        error instanceof McpError &&
        error.code === ErrorCode.RequestTimeout &&
        Date.now() - started >= this.config.callTimeoutMs
      ) {
        return callTimedOut(label, details, this.config.callTimeoutMs);
      }
      return callFailed(label, details, error);
    } finally {
      closeProgressRoute();
      clearTimeout(deadline);
      this.inflight.delete(call);
      context.signal.removeEventListener('abort', forwardAbort);
    }
  }

  /** Closes the client (for stdio: ends stdin, then SIGTERM, then SIGKILL) and marks the server closed. */
  async close(): Promise<void> {
    this.state = 'closed';
    this.downReason = 'the MCP servers were closed';
    const client = this.client;
    this.client = undefined;
    await this.reconnecting?.catch(() => {});
    await client?.close().catch(() => {});
  }

  // Waits for a restart (started by this call or another) unless the call's signal fires first.
  private async usableClient(signal: AbortSignal): Promise<Client | undefined> {
    if (this.state === 'connected' && this.client) return this.client;
    if (this.state === 'closed') return undefined;
    if (this.reconnecting === undefined && this.reconnectsLeft > 0) {
      this.reconnectsLeft -= 1;
      const reason = this.downReason;
      this.reconnecting = this.open().catch((error: unknown) => {
        if (this.state !== 'closed') {
          const detail = errorMessage(error).replace(`MCP server '${this.name}' failed to start: `, '');
          this.downReason = `${reason}, and restarting it failed: ${detail}`;
        }
      });
    }
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([this.reconnecting, aborted]);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    return this.state === 'connected' ? this.client : undefined;
  }

  // The whole listing (every page and every definition) has one deadline: a timer it holds.
  private async listTools(timeout: number | undefined): Promise<void> {
    const client = this.client;
    if (!client) return;
    // A server may offer only resources or prompts: it has no tools, and no tools/list to ask.
    if (client.getServerCapabilities()?.tools === undefined) return;
    const limitMs = timeout ?? this.config.startupTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(
        new McpLimitError({
          server: this.name,
          limit: 'startupTimeoutMs',
          message: `no complete tool list within ${limitMs} ms (startupTimeoutMs)`,
        }),
      );
    }, limitMs);
    try {
      const { tools: listed, skipped: leftOut } = await readToolList({
        client,
        server: this.name,
        maxToolListPages: this.config.maxToolListPages,
        maxTools: this.config.maxTools,
        maxSchemaBytes: this.config.maxSchemaBytes,
        // The namespace description goes out with the tools in every request: it counts first.
        reservedBytes: Buffer.byteLength(this.namespaceDescription ?? ''),
        pageOnWire: {
          startPage: () => this.pageOnWire.clear(),
          get: (name) => this.pageOnWire.get(name),
        },
        signal: deadline.signal,
        pageTimeoutMs: limitMs,
      });
      if (client !== this.client) return;
      const defined = await defineServerTools({
        server: this.name,
        listed,
        previous: this.toolCache,
        shared: {
          namespaceDescription: this.namespaceDescription,
          deferLoading: this.config.deferLoading === true,
          ...(this.config.strict === 'auto' ? { strict: 'auto' as const } : {}),
          call: (mcpName, params, context) => this.call(mcpName, params, context),
        },
        isCurrent: () => client === this.client && !deadline.signal.aborted,
        signal: deadline.signal,
      });
      if (defined === undefined) {
        if (deadline.signal.aborted) throw deadline.signal.reason;
        return;
      }
      this.toolCache = defined.byDefinition;
      this.tools = defined.tools;
      this.skipped = [...leftOut, ...defined.skipped];
    } catch (error) {
      // The deadline's reason names the limit; the SDK reports it only as a timed-out request.
      throw deadline.signal.aborted ? deadline.signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
  }

  private capture(message: JSONRPCMessage): void {
    if (!('result' in message) || !isPlainObject(message.result)) return;
    const { tools } = message.result;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (isPlainObject(tool) && typeof tool.name === 'string') this.pageOnWire.set(tool.name, tool);
    }
  }

  private closed(generation: number): void {
    if (generation !== this.generation || this.state !== 'connected') return;
    const limit = this.limitFailure;
    this.limitFailure = undefined;
    if (limit !== undefined) this.lose(limit.message);
    else this.lose(this.config.kind === 'stdio' ? 'its process exited' : 'its connection closed');
  }

  private lose(reason: string): void {
    const client = this.client;
    this.client = undefined;
    this.state = 'unavailable';
    this.downReason = reason;
    for (const controller of this.inflight) controller.abort(new Error(reason));
    this.inflight.clear();
    client?.close().catch(() => {});
  }

  // The streamable HTTP transport reports a broken response stream only through onerror, without
  // saying which request it carried, and never fails that request: without this check a call to a
  // server that died would wait for the whole call timeout.
  private transportError(generation: number): void {
    if (this.config.kind !== 'http' || this.inflight.size === 0) return;
    this.checkAlive(generation).catch(() => {});
  }

  private checkAlive(generation: number): Promise<void> {
    this.checking ??= (async () => {
      try {
        await this.client?.ping({ timeout: Math.min(5000, this.config.startupTimeoutMs) });
      } catch (error) {
        if (generation === this.generation && this.state === 'connected') {
          this.lose(`its connection failed: ${errorMessage(error)}`);
        }
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  private createTransport(): Transport {
    this.limitFailure = undefined;
    this.stderrTail = '';
    return createServerTransport(this.name, this.config, (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
  }

  private startFailure(error: unknown): string {
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return this.config.kind === 'stdio'
        ? 'the process exited before completing the MCP handshake'
        : 'the connection closed before completing the MCP handshake';
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return `no MCP handshake within ${this.config.startupTimeoutMs} ms`;
    }
    return errorMessage(error);
  }

  private describeEndpoint(): string {
    const { config } = this;
    return config.kind === 'http'
      ? `url: ${config.url}`
      : `command: ${[config.command, ...(config.args ?? [])].join(' ')}`;
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail === '' ? '' : `\nLast stderr output of the server:\n${tail}`;
  }
}
