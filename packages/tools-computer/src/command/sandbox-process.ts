import type { ChildProcess, StdioOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { SpawnFunction } from '../computer-tools-context';
import type { ShellOutcome } from './command-run';
import { OutputReader } from './output-reader';
import { CommandCgroup, pidsCgroupParent } from './process-cgroup';
import { ARGS_FD, SANDBOX_COMMAND, SECCOMP_FD } from './sandbox-init';
import { spawnTurn } from './spawn-turn';

/**
 * bubblewrap's descriptors: no standard input; standard output and error, both the command end of
 * `output` (the command's output); the init's reports (3), bubblewrap's info (4), the seccomp
 * filter (5) and bubblewrap's options (6).
 */
function stdioWith(output: OutputReader): StdioOptions {
  return ['ignore', output.commandEnd, output.commandEnd, 'pipe', 'pipe', 'pipe', 'pipe'];
}

/**
 * The most an exiting worker waits for a parked bubblewrap it killed to leave its cgroup (it waits
 * only while the kernel refuses the removal, a few ms on an idle machine). The killed sandbox's
 * processes must be scheduled to die first: at a load of 16 on 2 cores, 100 ms was not always
 * enough, and the empty cgroup was left for the next worker's sweep (`removeStaleCgroups`).
 */
const EXIT_CLEANUP_MS = 2_000;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The process limit's set-up failed: the message the command's result carries. */
function processLimitError(error: unknown): Error {
  return new Error(`the process limit could not be set up (${errorMessage(error)})`);
}

/**
 * bubblewrap's options as it reads them on `ARGS_FD`: each followed by a NUL.
 *
 * Contract: throws when an option holds a NUL itself (it would end early, and what follows would
 * be read as options of its own).
 */
export function encodeOptions(options: readonly string[]): Buffer {
  if (options.some((option) => option.includes('\0'))) {
    throw new Error('a sandbox option contains a NUL character');
  }
  return Buffer.from(options.map((option) => `${option}\0`).join(''));
}

/**
 * One bubblewrap started before its command is known: `bwrap --args 6 -- <the init>`, blocked
 * reading its options on descriptor 6, which it reads to the pipe's end before doing anything
 * else (no mount, no fork yet). For a root worker it is already in a `pids` cgroup of its own that
 * allows it alone (`pids.max` 1), moved there by the worker before it is handed out: the kernel's
 * wait on that move (an RCU grace period where the hierarchy does not favour dynamic changes: 14 ms
 * measured on cgroup v1) is paid ahead of the command, and nothing the command starts can be
 * outside the cgroup.
 *
 * It is spawned with an empty environment and `/` as its folder: the command's environment reaches
 * the init as `--setenv` options, and a parked process keeps no agent's folder busy.
 */
export class SandboxProcess {
  private ended = false;
  private launched = false;
  /**
   * How the process ended, listened to from its spawn on: a spawn that fails emits its `error`
   * before whoever takes the process can listen.
   */
  readonly exited: Promise<ShellOutcome>;

  private constructor(
    /** The bubblewrap process; its stdio are `stdioWith(output)`. */
    readonly child: ChildProcess,
    /** Its output, read by whoever takes it (`OutputReader.listen`); destroyed when it ends unused. */
    readonly output: OutputReader,
    /** Its `pids` cgroup (a root worker's), removed when it ends unused or by the command's owner. */
    readonly cgroup: CommandCgroup | undefined,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.ended = true;
        live.delete(this);
        // Ended without a command: its cgroup is empty now (a command's owner removes its own).
        if (!this.launched) {
          void cgroup?.remove();
          output.destroy();
        }
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        this.ended = true;
        live.delete(this);
        if (!this.launched) output.destroy();
        resolve({ code: null, signal: null, error });
      });
    });
    live.add(this);
  }

  /**
   * Starts one with `spawn` (on its turn: `spawnTurn`), for a root worker in a new `pids` cgroup
   * that it joins before this resolves.
   *
   * Contract: throws what `spawn` throws, and "the process limit could not be set up (...)" when a
   * root worker's cgroup cannot be made or joined (the process is ended then). A spawn that fails
   * later (no such binary) comes back as the child's `error` event.
   */
  static async start(spawn: SpawnFunction, bwrapPath: string): Promise<SandboxProcess> {
    if (!exitHandlerInstalled) {
      exitHandlerInstalled = true;
      process.once('exit', endAllNow);
    }
    const cgroupParent = await pidsCgroupParent();
    const cgroup =
      cgroupParent === undefined
        ? undefined
        : await CommandCgroup.create(cgroupParent, 1).catch((error: unknown) => {
            throw processLimitError(error);
          });
    let output: OutputReader;
    try {
      output = await OutputReader.open();
    } catch (error) {
      await cgroup?.remove();
      throw error;
    }
    await spawnTurn();
    let child: ChildProcess;
    try {
      child = spawn(bwrapPath, ['--args', String(ARGS_FD), ...SANDBOX_COMMAND], {
        cwd: '/',
        env: {},
        detached: true,
        stdio: stdioWith(output),
      });
    } catch (error) {
      output.destroy();
      await cgroup?.remove();
      throw error;
    } finally {
      output.releaseCommandEnd();
    }
    // A pipe bubblewrap closed (it ended, or read the filter) must not throw in the worker.
    for (const stream of child.stdio) stream?.on('error', () => undefined);
    if (cgroup === undefined || child.pid === undefined) {
      // Without a pid the spawn failed (its `error` event says why, on the next tick): listened to
      // before anything is awaited, or the worker would die of an unhandled `error` (a root worker
      // whose bubblewrap was removed). No process to move.
      const sandbox = new SandboxProcess(child, output, undefined);
      if (cgroup !== undefined) await cgroup.remove();
      return sandbox;
    }
    const sandbox = new SandboxProcess(child, output, cgroup);
    try {
      await cgroup.join(child.pid);
    } catch (error) {
      sandbox.end();
      throw processLimitError(error);
    }
    return sandbox;
  }

  /**
   * Whether it still waits for its options: not handed a command, not ended, and not stopped or a
   * zombie as `/proc` shows it now (its `exit` event may not have been handled yet).
   */
  async waiting(): Promise<boolean> {
    const { pid } = this.child;
    if (this.launched || this.ended || pid === undefined) return false;
    const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => '');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== '' && !'ZXxTt'.includes(state) && !this.ended;
  }

  /** Whether it keeps the worker's event loop running: not while it is parked, so that a worker can exit. */
  hold(held: boolean): void {
    if (held) this.child.ref();
    else this.child.unref();
    this.output.hold(held);
    for (const stream of this.child.stdio) {
      const socket = stream as Socket | null;
      if (held) socket?.ref?.();
      else socket?.unref?.();
    }
  }

  /**
   * Hands it its command: `maxProcesses` tasks allowed in its cgroup (plus bubblewrap itself), the
   * seccomp filter on fd 5, then the options on fd 6 (`encodeOptions`), after which bubblewrap sets
   * the sandbox up and runs the init. Listen to the child's output and exit before calling this.
   *
   * Contract: throws when the options hold a NUL, or "the process limit could not be set up (...)"
   * when the cgroup's limit cannot be raised; the process is ended then, its command never run.
   */
  async launch(options: readonly string[], filter: Buffer, maxProcesses: number): Promise<void> {
    this.launched = true;
    try {
      const encoded = encodeOptions(options);
      await this.cgroup?.limit(maxProcesses + 1).catch((error: unknown) => {
        throw processLimitError(error);
      });
      this.hold(true);
      const stdio = this.child.stdio as unknown as (Socket | null | undefined)[];
      stdio[SECCOMP_FD]?.end(filter);
      stdio[ARGS_FD]?.end(encoded);
    } catch (error) {
      // It never read its options: ended, and its cgroup removed, as one never handed out.
      this.launched = false;
      this.end();
      throw error;
    }
  }

  /** Ends it without a command: SIGKILL (it has forked nothing); its cgroup is removed once it exited. */
  end(): void {
    if (!this.ended) this.child.kill('SIGKILL');
  }

  /**
   * `end` for an exiting worker, whether it ran a command or not (`--die-with-parent` ends the
   * sandbox with it, as it would have ended with the worker): nothing asynchronous runs any more,
   * so the cgroup of one that ran no command is removed at once.
   */
  endNow(): void {
    if (!this.ended) this.child.kill('SIGKILL');
    if (!this.launched) this.cgroup?.removeNow(EXIT_CLEANUP_MS);
  }
}

/** Every bubblewrap started and not yet ended, for the exit handler. */
const live = new Set<SandboxProcess>();
let exitHandlerInstalled = false;

function endAllNow(): void {
  for (const sandbox of live) sandbox.endNow();
  live.clear();
}

/** The parked sandbox of each bubblewrap binary (one at most), as it is being started or ready. */
const parked = new Map<string, Promise<SandboxProcess | undefined>>();

/**
 * Parks a sandbox for `bwrapPath`'s next command in the background, unless one is parked or being
 * parked: spawned with Node's own `spawn` (tools given a `spawn` of their own do not park), kept
 * out of the event loop's count, and ended when the worker exits. One that ends while parked is
 * dropped (the next command starts one); one that cannot be parked leaves nothing behind.
 */
export function parkSandboxProcess(spawn: SpawnFunction, bwrapPath: string): void {
  if (parked.has(bwrapPath)) return;
  const parking = SandboxProcess.start(spawn, bwrapPath).then(
    (sandbox) => {
      sandbox.hold(false);
      sandbox.child.once('exit', () => {
        if (parked.get(bwrapPath) === parking) parked.delete(bwrapPath);
      });
      return sandbox;
    },
    () => {
      // The next command starts its own, and says why when that fails too.
      if (parked.get(bwrapPath) === parking) parked.delete(bwrapPath);
      return undefined;
    },
  );
  parked.set(bwrapPath, parking);
}

/**
 * The sandbox for a command: the one parked for `bwrapPath` when it is still waiting (waiting for
 * one being parked at most as long as its start has left), else one started now with `spawn`.
 * Two commands at once: the first takes the parked one, the other starts its own. The caller hands
 * it its command (`launch`) and then parks the next (`parkSandboxProcess`).
 *
 * Contract: throws as `SandboxProcess.start`; a parked one that ended or was stopped is ended and
 * never used.
 */
export async function takeSandboxProcess(
  spawn: SpawnFunction,
  bwrapPath: string,
  useParked: boolean,
): Promise<SandboxProcess> {
  const parking = useParked ? parked.get(bwrapPath) : undefined;
  if (parking !== undefined) parked.delete(bwrapPath);
  const candidate = await parking;
  if (candidate !== undefined) {
    if (await candidate.waiting()) return candidate;
    candidate.end();
  }
  return SandboxProcess.start(spawn, bwrapPath);
}

/** The pids of the sandboxes parked now (for tests: one per bubblewrap binary at most). */
export async function parkedSandboxes(): Promise<{ pid: number; cgroup: string | undefined }[]> {
  const found = await Promise.all(parked.values());
  return found
    .filter((sandbox): sandbox is SandboxProcess => sandbox !== undefined && sandbox.child.pid !== undefined)
    .map((sandbox) => ({ pid: sandbox.child.pid as number, cgroup: sandbox.cgroup?.folder }));
}
