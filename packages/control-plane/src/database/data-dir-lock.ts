import type { BigIntStats } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ControlPlaneConfigError } from '../errors/control-plane-config-error';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { describeDataDirHolder, type LockInfo } from './data-dir-holder';
import { type LockProcess, type LockTool, startLockProcess } from './lock-process';

/**
 * The file in a PGlite data directory that names the process holding it. Only for messages: the
 * lock itself is the OS lock on the directory, which no file operation can take away.
 */
export const DATA_DIR_LOCK_FILE = 'switchyard.lock';

/** Why this process no longer holds its data directory. */
export interface DataDirLockLoss {
  /** The data directory, as it was given. */
  readonly dataDir: string;
  /** What happened, e.g. `its lock process 4242 (flock) exited (signal SIGKILL)`. */
  readonly message: string;
}

/** What `lockDataDir` takes besides the directory. */
export interface DataDirLockOptions {
  /** Called once when the lock is found lost (never after `release()`). */
  onLost?: (loss: DataDirLockLoss) => void;
  /** How often the directory is checked (still the locked one, its lock-info file intact), in ms. Default 1000. */
  checkIntervalMs?: number;
  /** The programs tried, in order. Default `['flock', 'perl']`. */
  tools?: readonly LockTool[];
}

/** A held data directory. */
export interface DataDirLock {
  /** The program holding the OS lock. */
  readonly tool: LockTool;
  /** Its process id. */
  readonly lockPid: number;
  /** Removes the lock-info file if it is still this process's, then lets the OS lock go. Idempotent. */
  release(): Promise<void>;
}

function ownCommand(): string {
  const [, script, ...rest] = process.argv;
  const words = [script === undefined ? 'node' : path.basename(script), ...rest].join(' ');
  return words.length > 200 ? `${words.slice(0, 199)}…` : words;
}

function sameDirectory(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Locks `directory` with the first of `tools` that is installed. */
async function takeOsLock(
  dataDir: string,
  directory: string,
  identity: BigIntStats,
  tools: readonly LockTool[],
): Promise<LockProcess> {
  for (const tool of tools) {
    const attempt = await startLockProcess(directory, tool);
    if (attempt.outcome === 'held') return attempt.process;
    if (attempt.outcome === 'conflict') {
      const who = await describeDataDirHolder(identity, path.join(directory, DATA_DIR_LOCK_FILE));
      throw new ControlPlaneInputError(
        'dataDir',
        `${dataDir} is in use by ${who}: embedded PGlite is one process's database. ` +
          'Stop that process first (`switchyard serve` answers turns and workflows over its HTTP API while it runs), ' +
          'or share one PostgreSQL server between processes (DATABASE_URL).',
      );
    }
  }
  throw new ControlPlaneConfigError({
    field: 'dataDir',
    message:
      `embedded PGlite holds ${dataDir} with an OS lock, taken by flock(1) from util-linux or, where that is ` +
      `missing, by perl, and neither (${tools.join(', ')}) is on the PATH: install util-linux, or use a ` +
      'PostgreSQL server (databaseUrl, DATABASE_URL)',
  });
}

/**
 * Takes a PGlite data directory for this process: embedded PGlite is one process's database (two
 * processes writing one data directory corrupt it, and a reader in a second process sees stale
 * pages). The directory itself is held with an exclusive OS lock (`flock(2)`), taken and kept by a
 * child process (`flock(1)`, or perl where that is missing) that lives as long as this process
 * does: deleting, rewriting or backdating any file in the directory cannot let a second process in,
 * and a holder that dies (SIGKILL included) lets the directory go at once. A lock-info file
 * (`switchyard.lock`: pid, host, command, since) names the holder in refusals.
 *
 * While held, the lock is checked every `checkIntervalMs`: its child process still runs, and the
 * path still names the directory that was locked (not removed, nor replaced by another). When
 * either fails, `onLost` is called once: another process may open the path now. A deleted or
 * rewritten lock-info file is written again.
 *
 * Contract: throws `ControlPlaneInputError` on `dataDir` naming the holding process (pid, command,
 * since when) when another process, or this one, holds the directory; `ControlPlaneConfigError`
 * on `dataDir` when neither `flock(1)` nor perl is installed (no silent fallback to a lock file);
 * rejects when the directory does not exist or cannot be locked (the tool's message).
 */
export async function lockDataDir(dataDir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
  const directory = path.resolve(dataDir);
  const infoFile = path.join(directory, DATA_DIR_LOCK_FILE);
  const identity = await stat(directory, { bigint: true });
  if (!identity.isDirectory()) throw new ControlPlaneInputError('dataDir', `${dataDir} is not a directory`);
  const held = await takeOsLock(dataDir, directory, identity, options.tools ?? ['flock', 'perl']);
  const locked = await stat(directory, { bigint: true }).catch(() => undefined);
  if (locked === undefined || !sameDirectory(locked, identity)) {
    await held.release();
    throw new ControlPlaneInputError(
      'dataDir',
      `${dataDir} was removed or replaced while it was being locked`,
    );
  }
  const info: LockInfo = {
    pid: process.pid,
    host: os.hostname(),
    command: ownCommand(),
    since: new Date().toISOString(),
    lockPid: held.pid,
  };
  const text = `${JSON.stringify(info)}\n`;
  // Whether the file still holds `text`: read only when its size says it may (anyone can write there).
  const ownInfo = async () =>
    (await stat(infoFile).catch(() => undefined))?.size === Buffer.byteLength(text) &&
    (await readFile(infoFile, 'utf8').catch(() => undefined)) === text;
  try {
    await writeFile(infoFile, text);
  } catch (error) {
    await held.release();
    throw error;
  }

  let state: 'held' | 'lost' | 'released' = 'held';
  let checking: Promise<void> | undefined;
  const report = (message: string) => {
    if (state !== 'held') return;
    state = 'lost';
    clearInterval(timer);
    // The child (if it still runs) keeps what it holds until `release()`: the directory moved away
    // is still this process's database.
    options.onLost?.({ dataDir, message });
  };
  const check = async () => {
    const now = await stat(directory, { bigint: true }).catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' || error.code === 'ENOTDIR' ? null : undefined,
    );
    if (state !== 'held' || now === undefined) return;
    if (now === null) return report(`${directory} was removed: another process can create and open it now`);
    if (!sameDirectory(now, identity)) {
      return report(
        `${directory} was replaced: it names another directory than the one this process locked, which another process can open now`,
      );
    }
    // Only for messages, but kept true: a second process names this one from it where there is no /proc.
    if (!(await ownInfo()) && state === 'held') {
      await writeFile(infoFile, text).catch(() => {});
    }
  };
  const timer = setInterval(() => {
    checking ??= check().finally(() => {
      checking = undefined;
    });
  }, options.checkIntervalMs ?? 1000);
  timer.unref();
  void held.exited.then((how) =>
    report(
      `its lock process ${held.pid} (${held.tool}) exited (${how}): another process can open ${directory} now`,
    ),
  );

  let releasing: Promise<void> | undefined;
  return {
    tool: held.tool,
    lockPid: held.pid,
    release: () => {
      releasing ??= (async () => {
        if (state === 'held') state = 'released';
        clearInterval(timer);
        await checking;
        // Another process's file (after a loss) is left alone.
        if (await ownInfo()) {
          await unlink(infoFile).catch(() => {});
        }
        await held.release();
      })();
      return releasing;
    },
  };
}
