import { open } from 'node:fs/promises';
import os from 'node:os';

/** What the lock-info file of a held data directory says about its holder. */
export interface LockInfo {
  /** The holding process. */
  pid: number;
  /** Its host name. */
  host: string;
  /** Its command line (the script and its arguments). */
  command: string;
  /** When it took the directory (ISO 8601). */
  since: string;
  /** The child process holding the OS lock for it. */
  lockPid: number;
}

/** Where a directory's OS lock is, as `stat` names it: the device and the inode. */
export interface DirectoryIdentity {
  dev: bigint;
  ino: bigint;
}

/** The lock-info file is a few hundred bytes: anything past this is not one. */
const MAX_INFO_BYTES = 4096;
/** `/proc/locks` lists every lock on the machine; past this much it is not read further. */
const MAX_PROC_LOCKS_BYTES = 4 * 1024 * 1024;
const MAX_COMMAND_CHARS = 200;

/** Reads at most `limit` bytes of `file`, or undefined when it cannot be read. */
async function readHead(file: string, limit: number): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(limit);
    let length = 0;
    while (length < limit) {
      const { bytesRead } = await handle.read(buffer, length, limit - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** The lock-info file's holder, or undefined when it is missing, unreadable or not one. */
async function readLockInfo(file: string): Promise<LockInfo | undefined> {
  const text = await readHead(file, MAX_INFO_BYTES);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (!Number.isInteger(value.pid) || typeof value.host !== 'string') return undefined;
    return {
      pid: value.pid as number,
      host: value.host,
      command:
        typeof value.command === 'string' ? value.command.slice(0, MAX_COMMAND_CHARS) : 'unknown command',
      since: typeof value.since === 'string' ? value.since.slice(0, 40) : 'an unknown time',
      lockPid: Number.isInteger(value.lockPid) ? (value.lockPid as number) : 0,
    };
  } catch {
    return undefined;
  }
}

/** Linux's `MAJOR:MINOR` of a `stat` device number, as `/proc/locks` prints it (glibc's `major`/`minor`). */
function deviceOf(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/** The pid of the process holding a `flock` on `identity`, from `/proc/locks` (Linux), if any. */
async function lockingPid(identity: DirectoryIdentity): Promise<number | undefined> {
  const text = await readHead('/proc/locks', MAX_PROC_LOCKS_BYTES);
  if (text === undefined) return undefined;
  // `1: FLOCK  ADVISORY  WRITE 4242 fe:00:2156140 0 EOF` (waiters' lines carry `->` and are skipped).
  const wanted = `${deviceOf(identity.dev)}:${identity.ino}`;
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === 'FLOCK' && fields[3] === 'WRITE' && fields[5] === wanted) {
      const pid = Number(fields[4]);
      // 0: a process outside this pid namespace.
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    }
  }
  return undefined;
}

/** The parent of `pid` (Linux), if it can be read. */
async function parentOf(pid: number): Promise<number | undefined> {
  const status = await readHead(`/proc/${pid}/status`, 8192);
  const parent = /^PPid:\s*(\d+)$/m.exec(status ?? '')?.[1];
  return parent === undefined ? undefined : Number(parent);
}

/** The command line of `pid` (Linux), shortened. */
async function commandOf(pid: number): Promise<string | undefined> {
  const text = await readHead(`/proc/${pid}/cmdline`, 4096);
  if (text === undefined || text === '') return undefined;
  const words = text.replace(/\0$/, '').split('\0').join(' ');
  return words.length > MAX_COMMAND_CHARS ? `${words.slice(0, MAX_COMMAND_CHARS - 1)}…` : words;
}

/**
 * Names the process holding the data directory whose OS lock sits on `identity`, for a refusal:
 * `process 4242 (cli.js serve --port 0) since 2026-…`, or `this process (…)`.
 *
 * The kernel's word comes first: on Linux `/proc/locks` names the lock's process, whose parent is
 * the holder, whatever became of the lock-info file (deleted, rewritten); the file adds when it
 * took the directory, and names the holder where there is no `/proc`.
 */
export async function describeDataDirHolder(identity: DirectoryIdentity, infoFile: string): Promise<string> {
  const info = await readLockInfo(infoFile);
  const lockPid = await lockingPid(identity);
  const holderPid = lockPid === undefined ? undefined : await parentOf(lockPid);
  const host = os.hostname();
  if (holderPid !== undefined) {
    if (holderPid === process.pid) return 'this process (it is already open here)';
    const recorded = info !== undefined && info.pid === holderPid && info.host === host ? info : undefined;
    const command = recorded?.command ?? (await commandOf(holderPid)) ?? 'unknown command';
    return `process ${holderPid} (${command})${recorded === undefined ? '' : ` since ${recorded.since}`}`;
  }
  if (info !== undefined) {
    if (info.pid === process.pid && info.host === host) return 'this process (it is already open here)';
    const where = info.host === host ? '' : ` on ${info.host}`;
    return `process ${info.pid}${where} (${info.command}) since ${info.since}`;
  }
  return `another process (its lock-info file ${infoFile} is missing or unreadable)`;
}
