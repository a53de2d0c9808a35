import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpLimitError } from '../errors/mcp-limit-error';
import { BoundedLineReader, type OversizedLine } from './bounded-line-reader';
import { refusedMessageId, refusedResponse } from './refused-response';

/** What `BoundedStdioTransport` starts and how much it reads. */
export interface BoundedStdioTransportOptions {
  /** The configured server name, for messages. */
  server: string;
  command: string;
  args?: string[];
  /** Added to the SDK's safe default environment (`HOME`, `PATH`, ...). */
  env?: Record<string, string>;
  cwd?: string;
  /** Most bytes of one line (one message) read from the server's stdout. */
  maxMessageBytes: number;
}

/**
 * How many bytes of one line are read (and dropped) before a line without end is taken as a stream
 * that will never end: past it the server is stopped.
 */
const RUNAWAY_FACTOR = 4;

/**
 * The SDK's stdio client transport, with one difference: a line (a message) over `maxMessageBytes`
 * is dropped as it arrives instead of being held whole (the SDK holds up to 10 MiB and then stops
 * the server). The request it answered fails at once with an `McpLimitError` naming the server and
 * the limit, and the server keeps serving its other calls; a line whose id cannot be read, or that
 * runs past four times the limit without ending, stops the server (`onerror` gets the error first).
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The server's stderr, readable before `start()` so that nothing it writes early is lost. */
  readonly stderr = new PassThrough();

  private process: ChildProcess | undefined;
  private readonly reader: BoundedLineReader;

  constructor(private readonly options: BoundedStdioTransportOptions) {
    const limit = options.maxMessageBytes;
    this.reader = new BoundedLineReader(limit, limit * RUNAWAY_FACTOR, {
      line: (text) => this.receive(text),
      oversized: (line) => this.refuse(line),
      runaway: (bytes) =>
        this.stop(
          new McpLimitError({
            server: options.server,
            limit: 'maxMessageBytes',
            message: `MCP server '${options.server}' sent a message without end (${bytes} bytes read, over ${RUNAWAY_FACTOR} times its maxMessageBytes of ${limit}); the server was stopped`,
          }),
        ),
    });
  }

  start(): Promise<void> {
    if (this.process) throw new Error('BoundedStdioTransport already started');
    const { command, args = [], env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: { ...getDefaultEnvironment(), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        ...(cwd === undefined ? {} : { cwd }),
      });
      this.process = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.process = undefined;
        this.reader.clear();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.reader.push(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin;
      if (!stdin) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then SIGTERM, then SIGKILL, two seconds apart (as the SDK's transport does). */
  async close(): Promise<void> {
    const child = this.process;
    if (child === undefined) return;
    this.process = undefined;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    await within(2000);
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      child.kill(signal);
      if (signal === 'SIGTERM') await within(2000);
    }
    this.reader.clear();
  }

  private receive(text: string): void {
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  private refuse(line: OversizedLine): void {
    const { server, maxMessageBytes } = this.options;
    const id = refusedMessageId(line.head, line.tail);
    const error = new McpLimitError({
      server,
      limit: 'maxMessageBytes',
      message: `MCP server '${server}' sent a message of ${line.bytes} bytes, over its maxMessageBytes of ${maxMessageBytes}; it was not read${id === undefined ? ', and as it answered no request this client can name, the server was stopped' : ''}`,
    });
    if (id === undefined) {
      this.stop(error);
      return;
    }
    this.onmessage?.(refusedResponse(id, error));
  }

  private stop(error: McpLimitError): void {
    this.onerror?.(error);
    this.close().catch(() => {});
  }
}
