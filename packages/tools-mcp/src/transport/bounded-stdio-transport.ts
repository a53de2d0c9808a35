import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { jsonTextNestsDeeperThan } from '@switchyard/core/internal';
import { McpLimitError } from '../errors/mcp-limit-error';
import { BoundedLineReader, OVERSIZED_LINE_ENDS, type OversizedLine } from './bounded-line-reader';
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
 * The deepest one message may nest: `JSON.parse` of deeper text takes time that grows faster than
 * its length (10 messages of 4 MB nested 2,000,000 deep held the event loop for 0.7 to 2 s), and
 * what it builds overflows the stack of whatever copies it. An input schema of 128 levels (core's
 * limit) in a `tools/list` answer nests about 135.
 */
export const MAX_MESSAGE_DEPTH = 256;

/**
 * The most bytes written to a server's stdin and not yet taken by it, and the most messages waiting
 * to be written: a server that stops reading while it sends requests (a flood of `ping`s, each
 * answered, each answer's request held by the SDK until it is sent) would otherwise grow the worker
 * without end (2.4 GB in 20 s). Past either the server is stopped.
 */
export const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
export const MAX_WAITING_MESSAGES = 10_000;

/**
 * The most lines that are not JSON-RPC messages a server may write in `INVALID_LINES_WINDOW_MS`:
 * a stray log line is dropped, a server that writes nothing else is stopped (each line costs a
 * failed parse on the main thread: such a stream held `/healthz` for seconds).
 */
export const MAX_INVALID_LINES = 1_000;
const INVALID_LINES_WINDOW_MS = 10_000;

/**
 * The SDK's stdio client transport, with one difference: a line (a message) over `maxMessageBytes`
 * is dropped as it arrives instead of being held whole (the SDK holds up to 10 MiB and then stops
 * the server). The request it answered fails at once with an `McpLimitError` naming the server and
 * the limit, and the server keeps serving its other calls; a line whose id cannot be read, or that
 * runs past four times the limit without ending, stops the server (`onerror` gets the error first).
 * A message nested deeper than `MAX_MESSAGE_DEPTH` is refused the same way, before it is parsed; a
 * server that leaves more than `MAX_UNREAD_BYTES` of what is sent to it unread, or writes more than
 * `MAX_INVALID_LINES` lines that are not JSON-RPC within 10 s, is stopped.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The server's stderr, readable before `start()` so that nothing it writes early is lost. */
  readonly stderr = new PassThrough();

  private process: ChildProcess | undefined;
  private readonly reader: BoundedLineReader;
  /** Lines that were not JSON-RPC messages in the window that started at `invalidSince`. */
  private invalidLines = 0;
  private invalidSince = 0;
  /** Sends waiting for stdin to drain (one `drain` listener settles them all). */
  private waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  /** Stopped for going past a limit: nothing more is read from it or sent to it. */
  private stopped = false;

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
        this.rejectWaiting(new Error('Not connected'));
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
      if (!stdin || this.stopped) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) {
        resolve();
        return;
      }
      this.waiting.push({ resolve, reject });
      if (this.waiting.length === 1) {
        stdin.once('drain', () => {
          const drained = this.waiting;
          this.waiting = [];
          for (const send of drained) send.resolve();
        });
      }
      if (stdin.writableLength > MAX_UNREAD_BYTES || this.waiting.length > MAX_WAITING_MESSAGES) {
        const { server } = this.options;
        this.stop(
          new McpLimitError({
            server,
            limit: 'maxUnreadBytes',
            message: `MCP server '${server}' stopped reading its stdin (${stdin.writableLength} bytes and ${this.waiting.length} messages sent to it waiting, over ${MAX_UNREAD_BYTES} bytes or ${MAX_WAITING_MESSAGES} messages); the server was stopped`,
          }),
        );
      }
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
    if (this.stopped) return;
    const start = text.trimStart();
    if (start === '') return;
    // Not an object: not a message, and not worth a failed parse.
    if (!start.startsWith('{')) {
      this.invalid(new SyntaxError(`not a JSON-RPC message: ${JSON.stringify(start.slice(0, 80))}`));
      return;
    }
    if (jsonTextNestsDeeperThan(text, MAX_MESSAGE_DEPTH)) {
      this.refuseDeep(text);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      this.invalid(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  /** A line that is not a message: reported, and counted against `MAX_INVALID_LINES`. */
  private invalid(error: Error): void {
    const now = Date.now();
    if (now - this.invalidSince > INVALID_LINES_WINDOW_MS) {
      this.invalidSince = now;
      this.invalidLines = 0;
    }
    this.invalidLines += 1;
    if (this.invalidLines > MAX_INVALID_LINES) {
      const { server } = this.options;
      this.stop(
        new McpLimitError({
          server,
          limit: 'maxInvalidLines',
          message: `MCP server '${server}' wrote more than ${MAX_INVALID_LINES} lines that are not JSON-RPC messages within ${INVALID_LINES_WINDOW_MS / 1000} s; the server was stopped`,
        }),
      );
      return;
    }
    this.onerror?.(error);
  }

  private refuseDeep(text: string): void {
    const { server } = this.options;
    const id = refusedMessageId(text.slice(0, OVERSIZED_LINE_ENDS), text.slice(-OVERSIZED_LINE_ENDS));
    const error = new McpLimitError({
      server,
      limit: 'maxMessageDepth',
      message: `MCP server '${server}' sent a message nested deeper than ${MAX_MESSAGE_DEPTH} levels; it was not read${id === undefined ? ', and as it answered no request this client can name, the server was stopped' : ''}`,
    });
    if (id === undefined) {
      this.stop(error);
      return;
    }
    this.onmessage?.(refusedResponse(id, error));
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
    if (this.stopped) return;
    this.stopped = true;
    this.onerror?.(error);
    // What waited to be sent never will be: the requests behind it are let go now, not at exit.
    this.rejectWaiting(error);
    this.reader.clear();
    // Nothing more is read: a server that floods its stdout waits on a full pipe until it is stopped.
    this.process?.stdout?.pause();
    this.close().catch(() => {});
  }

  private rejectWaiting(error: Error): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const send of waiting) send.reject(error);
  }
}
