import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type ServerOpts, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The one buffer each command's output is read into: a full pipe or socket buffer per read. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Receives the output read into the reader's buffer. The bytes are valid only until it returns,
 * or, when it returns a promise, until that settles: the reader reads nothing more until then.
 */
export type OutputReceiver = (bytes: Buffer) => Promise<unknown> | undefined;

/** A connected Unix stream socket pair, made through a listener that accepts one connection. */
async function connectedPair(buffer: Buffer, onRead: (length: number) => boolean): Promise<[Socket, Socket]> {
  // A folder of the worker's own (0700), alive for the moment of one connection: only the worker's
  // user (and root) can reach the listener, so the one connection it accepts is the reader's, and a
  // sandboxed command does not see the host's temporary folder at all. (An abstract socket would
  // skip the folder, but anyone in the network namespace can list and connect to one.)
  const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-output-'));
  // The command's end is never read: paused from its creation (an option Node has, and
  // @types/node 20 does not list).
  const serverOptions: ServerOpts & { pauseOnCreate: boolean } = { pauseOnCreate: true };
  const server = createServer(serverOptions);
  server.maxConnections = 1;
  const socketPath = path.join(folder, 'socket');
  // An error of the listener (EMFILE on accept among them) fails the pair; it never throws in the worker.
  const failed = new Promise<never>((_resolve, reject) => server.on('error', reject));
  failed.catch(() => undefined);
  let reader: Socket | undefined;
  try {
    await Promise.race([new Promise<void>((resolve) => server.listen(socketPath, resolve)), failed]);
    const accepted = Promise.race([
      new Promise<Socket>((resolve) => server.once('connection', resolve)),
      failed,
    ]);
    // Awaited only once connected: a failure before then must not be an unhandled rejection.
    accepted.catch(() => undefined);
    const connecting = connect({
      path: socketPath,
      onread: { buffer, callback: (length) => onRead(length) },
    });
    reader = connecting;
    // Nothing is read before a receiver listens (a parked sandbox waits for its command).
    connecting.pause();
    await Promise.race([
      new Promise<void>((resolve, reject) => {
        connecting.once('connect', resolve);
        connecting.once('error', reject);
      }),
      failed,
    ]);
    return [connecting, await accepted];
  } catch (error) {
    reader?.destroy();
    throw error;
  } finally {
    // Closing the listener removes its socket file at once; the connections stay (its callback would
    // wait for them to end).
    server.close();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The worker's end of a command's output (its stdout and stderr, one socket, so that they
 * interleave in the order written), read into one 64 KiB buffer it allocates once.
 *
 * Why not the `'pipe'` that `spawn` makes: Node reads such a pipe into a new buffer per read, outside
 * the JavaScript heap. A command flooding output (`yes`) hands the worker one every few microseconds,
 * dropped at once past the output caps, and the garbage collector frees them only after tens of
 * megabytes of them piled up (64 MiB on Node 24, whose V8 starts a collection at that much external
 * memory): the worker's RSS grew by 61-73 MB per flood. Reading into one buffer allocates nothing
 * per read. `net.Socket`'s `onread` does that, and `spawn` takes a socket as a child's stdio: the pair
 * is a Unix stream socket pair, as the one `spawn` makes for `'pipe'` (libuv's `socketpair`), and the
 * child's end is made blocking in the child as that one is.
 */
export class OutputReader {
  private receiver: OutputReceiver | undefined;
  private early: Buffer[] = [];
  private destroyed = false;
  /** Resolves once every writer closed the output (and all of it was received), or it was destroyed. */
  readonly closed: Promise<void>;

  private constructor(
    private readonly buffer: Buffer,
    private readonly reader: Socket,
    /**
     * The command's end: hand it to `spawn` as the child's stdout and stderr, then
     * `releaseCommandEnd` (the worker's copy would keep the output open after the command ended).
     */
    readonly commandEnd: Socket,
  ) {
    // A command that ended, or a writer that closed its end first, must not throw in the worker.
    reader.on('error', () => undefined);
    commandEnd.on('error', () => undefined);
    this.closed = new Promise((resolve) => reader.once('close', () => resolve()));
    // The output's end: nothing is written to the reader's side, so it closes at once.
    reader.on('end', () => reader.destroy());
  }

  /**
   * A reader and the command end of a new socket pair.
   *
   * Contract: throws when the pair cannot be made (the temporary folder or a socket cannot be
   * created); nothing is left behind then.
   */
  static async open(): Promise<OutputReader> {
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    let output: OutputReader | undefined;
    // The reader is paused until `listen`, and no process has the command end yet: nothing is read
    // before `output` exists.
    const [reader, commandEnd] = await connectedPair(buffer, (length) => output?.deliver(length) ?? false);
    output = new OutputReader(buffer, reader, commandEnd);
    return output;
  }

  /** Starts handing the output to `receiver`, from its first byte. */
  listen(receiver: OutputReceiver): void {
    this.receiver = receiver;
    const early = this.early;
    this.early = [];
    for (const bytes of early) void receiver(bytes);
    if (!this.destroyed) this.reader.resume();
  }

  /** Closes the worker's copy of the command's end: call it once the child has its own (after `spawn`). */
  releaseCommandEnd(): void {
    this.commandEnd.destroy();
  }

  /** Whether it keeps the worker's event loop running (not while its sandbox is parked). */
  hold(held: boolean): void {
    if (held) this.reader.ref();
    else this.reader.unref();
  }

  /** Stops reading and closes both ends (output not yet read is lost); `closed` resolves. */
  destroy(): void {
    this.destroyed = true;
    this.commandEnd.destroy();
    this.reader.destroy();
  }

  /** The `onread` callback: returning false pauses the socket while the receiver still holds the bytes. */
  private deliver(length: number): boolean {
    if (this.receiver === undefined) {
      // Reading starts paused, but should a read come first, its bytes wait for the receiver.
      this.early.push(Buffer.from(this.buffer.subarray(0, length)));
      return false;
    }
    const held = this.receiver(this.buffer.subarray(0, length));
    if (held === undefined) return true;
    const resume = () => {
      if (!this.destroyed) this.reader.resume();
    };
    held.then(resume, resume);
    return false;
  }
}
