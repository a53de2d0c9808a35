import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** The programs that can hold an OS lock for this process, in the order they are tried. */
export type LockTool = 'flock' | 'perl';

/** A child process that holds an exclusive `flock(2)` lock on a directory until its stdin closes. */
export interface LockProcess {
  /** The program holding the lock. */
  readonly tool: LockTool;
  /** Its process id (the one `/proc/locks` names). */
  readonly pid: number;
  /** Resolves when it exits, with how: `code 0`, `signal SIGKILL`. */
  readonly exited: Promise<string>;
  /** Closes its stdin (it exits, and the kernel drops the lock) and waits for its exit. Idempotent. */
  release(): Promise<void>;
}

/** How an attempt to lock a directory ended. */
export type LockAttempt =
  | { outcome: 'held'; process: LockProcess }
  /** Another open file holds the lock. */
  | { outcome: 'conflict' }
  /** The tool is not installed (not on the `PATH`). */
  | { outcome: 'missing' };

/** The exit code both tools use for "someone else holds it" (EX_TEMPFAIL). */
const CONFLICT_EXIT_CODE = 75;
/** What the holder prints once it holds the lock. */
const HELD = 'held\n';
/** The most of a tool's stderr kept for an error message. */
const MAX_STDERR_BYTES = 4096;
/** How long a tool may take to answer (opening a directory on a hung network file system blocks). */
const ANSWER_TIMEOUT_MS = 10_000;
/** How long a released holder may take to exit before it is killed. */
const EXIT_TIMEOUT_MS = 5_000;

// util-linux flock(1) takes the lock itself and keeps it (`--close`: the command it runs does not
// inherit it) while its command runs; the command says so and then waits for its stdin to close.
// perl's flock is the same flock(2) call, so the two exclude each other; macOS ships perl, not flock(1).
const PERL_LOCKER = [
  'use Fcntl qw(:flock);',
  'open(my $directory, "<", $ARGV[0]) or die "cannot open $ARGV[0]: $!\\n";',
  `flock($directory, LOCK_EX | LOCK_NB) or do { exit ${CONFLICT_EXIT_CODE} if $!{EWOULDBLOCK}; die "cannot lock $ARGV[0]: $!\\n" };`,
  '$| = 1; print "held\\n";',
  '1 while sysread(STDIN, my $chunk, 4096);',
].join(' ');

function command(tool: LockTool, directory: string): [string, string[]] {
  return tool === 'flock'
    ? [
        'flock',
        [
          '--exclusive',
          '--nonblock',
          '--close',
          '--conflict-exit-code',
          String(CONFLICT_EXIT_CODE),
          directory,
          'sh',
          '-c',
          'echo held; exec cat >/dev/null',
        ],
      ]
    : ['perl', ['-e', PERL_LOCKER, directory]];
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal === null ? `code ${String(code)}` : `signal ${signal}`;
}

/**
 * Starts `tool` to take an exclusive, non-blocking `flock(2)` lock on `directory` (an absolute
 * path) and hold it while this process lives: the child waits for its stdin, a pipe from this
 * process, to close, which the kernel does when this process ends however it ends; the child then
 * exits and the kernel drops the lock. No file operation on the directory's contents can take it away.
 *
 * Contract: resolves `held` once the child holds the lock, `conflict` when another open file of
 * the directory holds it, `missing` when `tool` is not installed; rejects with the tool's own
 * message for anything else (no such directory, a file system without locks, no answer within 10 s).
 * The child and its pipes do not keep the process alive once the lock is held.
 */
export async function startLockProcess(directory: string, tool: LockTool): Promise<LockAttempt> {
  const [file, args] = command(tool, directory);
  let child: Child;
  try {
    child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { outcome: 'missing' };
    throw error;
  }
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(describeExit(code, signal))),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr = (stderr + chunk).slice(0, MAX_STDERR_BYTES);
  });
  // Nothing is written to it; a holder that already exited must not make this process crash.
  child.stdin.on('error', () => {});
  const answer = await new Promise<
    'held' | 'missing' | { code: number | null; signal: NodeJS.Signals | null }
  >((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not answer within ${ANSWER_TIMEOUT_MS} ms while locking ${directory}`));
    }, ANSWER_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout === HELD) {
        clearTimeout(timer);
        resolve('held');
      } else if (!HELD.startsWith(stdout)) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(
          new Error(`${file} answered ${JSON.stringify(stdout.slice(0, 80))} while locking ${directory}`),
        );
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT') resolve('missing');
      else reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
  if (answer === 'missing') return { outcome: 'missing' };
  if (answer !== 'held') {
    if (answer.code === CONFLICT_EXIT_CODE) return { outcome: 'conflict' };
    const message =
      stderr.trim() === '' ? `it exited (${describeExit(answer.code, answer.signal)})` : stderr.trim();
    throw new Error(`${file} could not lock ${directory}: ${message}`);
  }
  // Held: from now on the child lives as long as this process wants it, without keeping it alive.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void }).unref?.();
  }
  let releasing: Promise<void> | undefined;
  return {
    outcome: 'held',
    process: {
      tool,
      pid: child.pid as number,
      exited,
      release: () => {
        releasing ??= (async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          // Held until it has exited, so the lock is free when this resolves.
          child.ref();
          const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
          child.stdin.end();
          await exited;
          clearTimeout(timer);
        })();
        return releasing;
      },
    },
  };
}
