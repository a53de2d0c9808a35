import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../__fixtures__/until';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { DATA_DIR_LOCK_FILE, type DataDirLock, type DataDirLockLoss, lockDataDir } from './data-dir-lock';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(here, '../..');
const holderScript = path.join(here, '../__fixtures__/hold-data-dir.ts');
const onLinux = process.platform === 'linux';
const hasPerl = ['/usr/bin/perl', '/bin/perl'].some((file) => existsSync(file));

interface HolderLine {
  status: 'held' | 'refused' | 'lost';
  lockPid?: number;
  tool?: string;
  name?: string;
  field?: string;
  message?: string;
}

/** `hold-data-dir.ts` in a process of its own: another process holding (or trying to take) the directory. */
class Holder {
  readonly child: ChildProcess;
  readonly lines: HolderLine[] = [];
  readonly exited: Promise<number | NodeJS.Signals | null>;
  stderr = '';

  constructor(
    dataDir: string,
    options: { tool?: 'flock' | 'perl'; checkIntervalMs?: number; environment?: NodeJS.ProcessEnv } = {},
  ) {
    const { tool, checkIntervalMs = 100, environment = process.env } = options;
    const args = ['--import', 'tsx', holderScript, dataDir, String(checkIntervalMs)];
    if (tool !== undefined) args.push(tool);
    this.child = spawn(process.execPath, args, { cwd: packageRoot, env: environment, stdio: 'pipe' });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.lines.push(JSON.parse(line) as HolderLine);
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
  }

  line(status: HolderLine['status']): Promise<HolderLine> {
    return until(
      `the holder's ${status} line (stderr: ${this.stderr})`,
      async () => this.lines.find((line) => line.status === status),
      (line) => line !== undefined,
    ) as Promise<HolderLine>;
  }
}

let dataDir: string;
const holders: Holder[] = [];
const locks: DataDirLock[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-lock-'));
});

afterEach(async () => {
  for (const holder of holders.splice(0)) {
    holder.child.kill('SIGKILL');
    await holder.exited;
  }
  for (const lock of locks.splice(0)) await lock.release();
  await rm(dataDir, { recursive: true, force: true });
  await rm(`${dataDir}.moved`, { recursive: true, force: true });
});

async function lock(options: Parameters<typeof lockDataDir>[1] = {}): Promise<DataDirLock> {
  const taken = await lockDataDir(dataDir, options);
  locks.push(taken);
  return taken;
}

async function refusal(options: Parameters<typeof lockDataDir>[1] = {}): Promise<Error> {
  const error = await lockDataDir(dataDir, options).then(
    async (taken) => {
      await taken.release();
      throw new Error('the directory was taken although another process holds it');
    },
    (caught: unknown) => caught as Error,
  );
  expect(ControlPlaneInputError.isInstance(error)).toBe(true);
  expect((error as ControlPlaneInputError).field).toBe('dataDir');
  return error;
}

/** Whether `pid` is gone (or a zombie, which holds no files). */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

describe('data directory lock', () => {
  it('is held until released, and a second taker in the same process is refused', async () => {
    const first = await lock();
    const info = JSON.parse(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, lockPid: first.lockPid });
    expect((await refusal()).message).toContain('in use by this process');
    await first.release();
    expect(existsSync(path.join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);
    // Released means free: the lock process has exited when release() resolves.
    await (await lock()).release();
  });

  it('refuses a path that is not a directory', async () => {
    const file = path.join(dataDir, 'file');
    await writeFile(file, 'x');
    const error = await lockDataDir(file).catch((caught: unknown) => caught as Error);
    expect(ControlPlaneInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('is not a directory');
  });
});

describe.runIf(onLinux)('two processes', () => {
  it('refuses the second, naming the first, whatever becomes of the lock-info file', async () => {
    // It does not write its lock-info file again during the test: the kernel alone names it.
    const holder = new Holder(dataDir, { checkIntervalMs: 600_000 });
    holders.push(holder);
    await holder.line('held');
    const pid = holder.child.pid as number;
    const named = new RegExp(`in use by process ${pid} \\(hold-data-dir\\.ts ${dataDir} 600000\\) since 20`);
    expect((await refusal()).message).toMatch(named);
    expect((await refusal()).message).toContain('DATABASE_URL');

    // Deleted: the kernel still names the holder (through its lock process's parent).
    await rm(path.join(dataDir, DATA_DIR_LOCK_FILE));
    expect((await refusal()).message).toMatch(new RegExp(`in use by process ${pid} \\(.*hold-data-dir\\.ts`));

    // Unreadable and a minute old: no different.
    const info = path.join(dataDir, DATA_DIR_LOCK_FILE);
    await writeFile(info, '{"pid": 12');
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(info, minuteAgo, minuteAgo);
    expect((await refusal()).message).toMatch(new RegExp(`in use by process ${pid} \\(`));

    // Naming another live process: the kernel's word wins.
    await writeFile(info, JSON.stringify({ pid: process.ppid, host: os.hostname(), command: 'decoy' }));
    const error = await refusal();
    expect(error.message).toContain(`in use by process ${pid} (`);
    expect(error.message).not.toContain('decoy');
  }, 60_000);

  it('writes its lock-info file again when it is deleted or rewritten', async () => {
    const taken = await lock({ checkIntervalMs: 50 });
    const info = path.join(dataDir, DATA_DIR_LOCK_FILE);
    const written = await readFile(info, 'utf8');
    for (const change of [() => rm(info), () => writeFile(info, 'garbage')]) {
      await change();
      await until(
        'the lock-info file to be written again',
        async () => readFile(info, 'utf8').catch(() => ''),
        (text) => text === written,
      );
    }
    expect(JSON.parse(written)).toMatchObject({ pid: process.pid, lockPid: taken.lockPid });
  });

  it('lets the next process in at once when the holder is SIGKILLed', async () => {
    const holder = new Holder(dataDir);
    holders.push(holder);
    const { lockPid } = await holder.line('held');
    holder.child.kill('SIGKILL');
    await holder.exited;
    // The lock process sees its stdin close and exits within moments: no stale lock to wait out.
    await until('the lock process to exit', async () => gone(lockPid as number), Boolean, 5_000);
    const taken = await lock();
    const info = JSON.parse(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, lockPid: taken.lockPid });
  }, 60_000);

  it('refuses another process while this one holds the directory, and lets it in after release', async () => {
    const taken = await lock();
    const refused = new Holder(dataDir);
    holders.push(refused);
    const line = await refused.line('refused');
    expect(line).toMatchObject({ field: 'dataDir' });
    expect(line.message).toContain(`in use by process ${process.pid} (`);
    await taken.release();
    const next = new Holder(dataDir);
    holders.push(next);
    await next.line('held');
  }, 60_000);

  it.runIf(hasPerl)(
    'excludes a flock(1) holder and a perl holder from each other',
    async () => {
      const perlHolder = new Holder(dataDir, { tool: 'perl' });
      holders.push(perlHolder);
      const held = await perlHolder.line('held');
      expect(held).toMatchObject({ tool: 'perl' });
      expect((await refusal({ tools: ['flock'] })).message).toContain(
        `in use by process ${perlHolder.child.pid} (`,
      );
      perlHolder.child.kill('SIGKILL');
      await perlHolder.exited;
      // Free once its lock process has seen its stdin close and exited (at a load of 16, after the holder).
      await until('the perl lock process to exit', async () => gone(held.lockPid as number), Boolean);
      const taken = await lock({ tools: ['flock'] });
      expect(taken.tool).toBe('flock');
      expect((await refusal({ tools: ['perl'] })).message).toContain('in use by this process');
    },
    60_000,
  );
});

describe('where no OS lock can be taken', () => {
  it('refuses to open (no fallback to a lock file) when neither flock(1) nor perl is installed', async () => {
    const environment = { ...process.env, PATH: path.join(dataDir, 'no-such-bin') };
    const holder = new Holder(dataDir, { environment });
    holders.push(holder);
    const line = await holder.line('refused');
    expect(line).toMatchObject({ name: 'ControlPlaneConfigError', field: 'dataDir' });
    expect(line.message).toContain('neither (flock, perl) is on the PATH');
    expect(existsSync(path.join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);
  }, 60_000);
});

describe.runIf(onLinux)('a lost lock', () => {
  function watched(): {
    losses: DataDirLockLoss[];
    options: Parameters<typeof lockDataDir>[1];
    /** Waits (5 s at most) until a loss is reported. */
    lost: () => Promise<unknown>;
  } {
    const losses: DataDirLockLoss[] = [];
    const lost = () =>
      until(
        'the loss',
        async () => losses.length,
        (count) => count > 0,
        5_000,
      );
    return { losses, options: { checkIntervalMs: 50, onLost: (loss) => losses.push(loss) }, lost };
  }

  it('is reported once when its lock process is killed, and the directory is then free', async () => {
    const { losses, options, lost } = watched();
    const taken = await lock(options);
    process.kill(taken.lockPid, 'SIGKILL');
    await lost();
    expect(losses[0]?.dataDir).toBe(dataDir);
    expect(losses[0]?.message).toContain(`its lock process ${taken.lockPid} (flock) exited (signal SIGKILL)`);
    // Nothing held it any more: another process gets in.
    const next = new Holder(dataDir);
    holders.push(next);
    await next.line('held');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(losses).toHaveLength(1);
    // Releasing the lost lock leaves the new holder's file alone.
    await taken.release();
    expect(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8')).toContain(
      `"pid":${next.child.pid}`,
    );
  }, 60_000);

  it('is reported when the directory is replaced by another, or removed', async () => {
    const replaced = watched();
    const first = await lock(replaced.options);
    await rename(dataDir, `${dataDir}.moved`);
    await mkdir(dataDir);
    await replaced.lost();
    expect(replaced.losses[0]?.message).toContain(`${dataDir} was replaced`);
    await first.release();

    const removed = watched();
    await lock(removed.options);
    await rm(dataDir, { recursive: true });
    await removed.lost();
    expect(removed.losses[0]?.message).toContain(`${dataDir} was removed`);
  });

  it('is not reported after release', async () => {
    const { losses, options } = watched();
    const taken = await lock(options);
    await taken.release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(losses).toEqual([]);
    expect(gone(taken.lockPid)).toBe(true);
  });
});
