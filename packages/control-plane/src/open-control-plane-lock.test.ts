import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPgliteDatabase, type TestDatabase } from '@switchyard/test-databases';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE } from './database/data-dir-lock';
import { type ControlPlane, ControlPlaneInputError, type DataDirLockLoss, openControlPlane } from './index';

describe.runIf(process.platform === 'linux')('the embedded database’s lock, through openControlPlane', () => {
  let database: TestDatabase;
  let controlPlane: ControlPlane;
  let dataDir: string;

  beforeAll(async () => {
    database = await createPgliteDatabase();
    dataDir = (database.options as { dataDir: string }).dataDir;
    controlPlane = await openControlPlane({ ...database.options, environment: {} });
  }, 60_000);

  afterAll(async () => {
    await controlPlane?.close();
    await database?.dispose();
  }, 60_000);

  it('refuses a second control plane on the directory, naming this process', async () => {
    const error = await openControlPlane({ ...database.options, environment: {} }).catch(
      (caught: unknown) => caught,
    );
    expect(ControlPlaneInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('in use by this process');
  });

  it('resolves lockLost when the lock process is killed, and keeps answering queries', async () => {
    const unresolved = Symbol('pending');
    expect(await Promise.race([controlPlane.lockLost, Promise.resolve(unresolved)])).toBe(unresolved);
    const info = JSON.parse(await readFile(path.join(dataDir, DATA_DIR_LOCK_FILE), 'utf8'));
    expect(info.pid).toBe(process.pid);
    process.kill(info.lockPid, 'SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const loss = await Promise.race([
      controlPlane.lockLost,
      new Promise<DataDirLockLoss>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('lockLost did not resolve within 10 s')), 10_000);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(loss.dataDir).toBe(dataDir);
    expect(loss.message).toContain(`its lock process ${info.lockPid} (flock) exited (signal SIGKILL)`);
    // The database is still this process's to use and to close: the caller decides what to stop.
    expect(await controlPlane.queueDepths()).toEqual(expect.any(Array));
  });
});
