import { readFileSync } from 'node:fs';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';

/** The file in a PGlite data directory that names the process holding it. */
export const DATA_DIR_LOCK_FILE = 'switchyard.lock';

/** What the lock file holds. */
interface LockOwner {
  pid: number;
  host: string;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for it. */
  startTicks: string | null;
  command: string;
  since: string;
}

/** A held data directory: `release()` removes the lock when it is still this process's. */
export interface DataDirLock {
  /** Removes the lock file if this process still owns it. Idempotent. */
  release(): Promise<void>;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
function startTicks(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: a process of another user holds the pid, so it is alive.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const ticks = startTicks(owner.pid);
  return owner.startTicks === null || ticks === null || ticks === owner.startTicks;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string') return undefined;
    return {
      pid: value.pid,
      host: value.host,
      startTicks: typeof value.startTicks === 'string' ? value.startTicks : null,
      command: typeof value.command === 'string' ? value.command : 'unknown command',
      since: typeof value.since === 'string' ? value.since : 'an unknown time',
    };
  } catch {
    return undefined;
  }
}

function ownCommand(): string {
  const [, script, ...rest] = process.argv;
  const words = [script === undefined ? 'node' : path.basename(script), ...rest].join(' ');
  return words.length > 200 ? `${words.slice(0, 199)}…` : words;
}

/**
 * Takes a PGlite data directory for this process: embedded PGlite is one process's database (two
 * processes writing one data directory corrupt it, and a reader in a second process sees stale
 * pages). The lock is a file naming the holder; a holder that died (its pid is gone, or reused by
 * another process) leaves a stale lock, which is taken over.
 *
 * Contract: throws `ControlPlaneInputError` on `dataDir` naming the holding process (pid, command,
 * since when) when a live process, or a process on another host, holds the directory.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, DATA_DIR_LOCK_FILE);
  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    startTicks: startTicks(process.pid),
    command: ownCommand(),
    since: new Date().toISOString(),
  };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await writeFile(file, text, { flag: 'wx' });
      return {
        release: async () => {
          const current = await readFile(file, 'utf8').catch(() => undefined);
          if (current === text) await unlink(file).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readFile(file, 'utf8').catch(() => undefined);
    if (current === undefined) continue; // released between our write and read: try again
    const owner = parseOwner(current);
    if (owner === undefined) {
      // A writer killed mid-write leaves a torn file; a racing writer's is complete within moments.
      const age = Date.now() - (await stat(file).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
    } else if (owner.host !== me.host || isAlive(owner)) {
      const who =
        owner.pid === process.pid && owner.host === me.host
          ? 'this process (it is already open here)'
          : `process ${owner.pid}${owner.host === me.host ? '' : ` on ${owner.host}`} (${owner.command})`;
      throw new ControlPlaneInputError(
        'dataDir',
        `${dataDir} is in use by ${who} since ${owner.since}: embedded PGlite is one process's database. ` +
          'Stop that process first (`switchyard serve` answers turns and workflows over its HTTP API while it runs), ' +
          `or share one PostgreSQL server between processes (DATABASE_URL).${
            owner.host === me.host ? '' : ` If that host is gone, remove ${file}.`
          }`,
      );
    }
    // The holder is gone: its lock is stale. Removed only if unchanged since it was read, so a
    // process that took the directory over meanwhile keeps its lock.
    if ((await readFile(file, 'utf8').catch(() => undefined)) === current) await unlink(file).catch(() => {});
  }
  throw new ControlPlaneInputError('dataDir', `${dataDir}: could not take its lock file ${file}; try again`);
}
