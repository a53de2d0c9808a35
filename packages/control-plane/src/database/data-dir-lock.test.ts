import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlaneInputError } from '../errors/control-plane-input-error';
import { DATA_DIR_LOCK_FILE, lockDataDir } from './data-dir-lock';

let dataDir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-lock-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

function ticksOf(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] as string;
}

async function holdBy(pid: number, command: string, startTicks: string | null): Promise<void> {
  await writeFile(
    path.join(dataDir, DATA_DIR_LOCK_FILE),
    JSON.stringify({ pid, host: os.hostname(), startTicks, command, since: '2026-12-01T10:00:00.000Z' }),
  );
}

describe('data directory lock', () => {
  it('is held until released, and a second taker in the same process is refused', async () => {
    const lock = await lockDataDir(dataDir);
    const owner = JSON.parse(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8'));
    expect(owner.pid).toBe(process.pid);
    const second = await lockDataDir(dataDir).catch((error: unknown) => error);
    expect(ControlPlaneInputError.isInstance(second)).toBe(true);
    expect((second as ControlPlaneInputError).field).toBe('dataDir');
    expect((second as Error).message).toContain('this process');
    await lock.release();
    expect(existsSync(path.join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);
    const again = await lockDataDir(dataDir);
    await again.release();
  });

  it.runIf(process.platform === 'linux')('names a live process that holds the directory', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid as number;
    await holdBy(pid, 'cli.js serve --port 0', ticksOf(pid));
    const error = await lockDataDir(dataDir).catch((caught: unknown) => caught);
    expect(ControlPlaneInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`in use by process ${pid} (cli.js serve --port 0)`);
    expect((error as Error).message).toContain('DATABASE_URL');
  });

  it.runIf(process.platform === 'linux')('takes over the lock of a process that died', async () => {
    const child = spawn('true', { stdio: 'ignore' });
    const pid = child.pid as number;
    const ticks = ticksOf(pid);
    await new Promise((resolve) => child.once('exit', resolve));
    await holdBy(pid, 'cli.js serve', ticks);
    const lock = await lockDataDir(dataDir);
    const owner = JSON.parse(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8'));
    expect(owner.pid).toBe(process.pid);
    await lock.release();
  });

  it.runIf(process.platform === 'linux')(
    'takes over a lock whose pid now belongs to another process',
    async () => {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      children.push(child);
      // The recorded start time is not the live process's: the pid was reused.
      await holdBy(child.pid as number, 'cli.js serve', '1');
      const lock = await lockDataDir(dataDir);
      await lock.release();
    },
  );
});
