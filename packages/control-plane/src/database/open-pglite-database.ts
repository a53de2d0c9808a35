import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type DataDirLockLoss, lockDataDir } from './data-dir-lock';
import type { Database, QueryResult, SqlExecutor } from './database';
import type { PgliteAnswer, PgliteRequest, PgliteThreadData, PgliteThreadError } from './pglite-protocol';
import { findPgliteTemplate, seedPgliteDataDir } from './pglite-template';

/**
 * The built thread script: beside this module in the package's `dist/`, or, when this module runs
 * from source (the package's own tests), in the package's `dist/` (the tests build first).
 */
function threadScript(): URL {
  const candidates = [
    new URL('./pglite-thread.js', import.meta.url),
    new URL('../../dist/pglite-thread.js', import.meta.url),
  ];
  const found = candidates.find((candidate) => existsSync(fileURLToPath(candidate)));
  if (found === undefined) {
    throw new Error(
      `pglite-thread.js is missing beside ${fileURLToPath(import.meta.url)}: build @switchyard/control-plane`,
    );
  }
  return found;
}

/** The error a thread's answer carries, rebuilt with its fields (`code`, `detail`, ...) and a local stack. */
function rebuild(error: PgliteThreadError): Error {
  const rebuilt = Object.assign(new Error(error.message), error.fields);
  rebuilt.name = error.name;
  return rebuilt;
}

type Send = (request: DistributiveOmit<PgliteRequest, 'id'>) => Promise<unknown>;
type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

function executor(send: Send, tx: number | undefined): SqlExecutor {
  const query = async <TRow>(text: string, values?: readonly unknown[]): Promise<QueryResult<TRow>> => {
    const rows = await send({
      kind: 'query',
      text,
      values: values === undefined ? undefined : [...values],
      tx,
    });
    return { rows: rows as TRow[] };
  };
  return {
    query,
    exec: async (text) => {
      await send({ kind: 'exec', text, tx });
    },
    executeSql: async (text, values) => {
      // PGlite's `query` takes one statement; pg-boss sends its migrations as scripts without values.
      if (values === undefined || values.length === 0) {
        return { rows: (await send({ kind: 'exec', text, tx })) as unknown[] };
      }
      return query(text, values);
    },
  };
}

/**
 * Opens (creating on first use) an embedded PGlite database persisted in `dataDir`, which this
 * process holds until `close()` (see `lockDataDir`). A new database is unpacked from the template
 * the package's build made (see `seedPgliteDataDir`) instead of running initdb in WebAssembly.
 *
 * PGlite runs in a worker thread of its own: its WebAssembly (start-up, every statement,
 * checkpoints) never runs on the caller's event loop, so a daemon serving many turns keeps
 * answering while the database works. Statements and results cross the thread by structured clone.
 *
 * Contract: PGlite is one connection; it serialises transactions itself (a statement outside a
 * transaction waits for an open one to end). Throws `ControlPlaneInputError` on `dataDir` naming
 * the process when another process holds it, and `ControlPlaneConfigError` on `dataDir` where no
 * OS lock can be taken (see `lockDataDir`). `onLockLost` is called once if the hold on the
 * directory is lost before `close()`. A database error keeps its PostgreSQL fields (`code`,
 * `detail`, `constraint`, ...). If the thread dies, every pending and later call rejects.
 */
export async function openPgliteDatabase(
  dataDir: string,
  options: { onLockLost?: (loss: DataDirLockLoss) => void } = {},
): Promise<Database> {
  await mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(
    dataDir,
    options.onLockLost === undefined ? {} : { onLost: options.onLockLost },
  );
  let thread: Worker;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  let started: Promise<void>;
  try {
    await seedPgliteDataDir(dataDir, await findPgliteTemplate());
    const data: PgliteThreadData = {
      dataDir,
      // 32 MB instead of PostgreSQL's 128 MB: wasm memory, once touched, is never given back, and a
      // worker's database is small (the OS page cache still holds the files). Measured on opening an
      // existing directory: 330 MB to 218 MB resident, 2.7 s to 2.0 s of CPU.
      extraStartParams: ['-c', 'shared_buffers=32MB'],
    };
    thread = new Worker(threadScript(), { workerData: data });
    started = new Promise<void>((resolve, reject) => pending.set(0, { resolve: () => resolve(), reject }));
  } catch (error) {
    await lock.release();
    throw error;
  }
  const fail = (error: Error) => {
    failure ??= error;
    for (const waiter of pending.values()) waiter.reject(failure);
    pending.clear();
  };
  thread.on('message', (answer: PgliteAnswer) => {
    const waiter = pending.get(answer.id);
    if (waiter === undefined) return;
    pending.delete(answer.id);
    // Nothing waits on the thread: it does not keep the process alive.
    if (pending.size === 0) thread.unref();
    if (answer.ok) waiter.resolve(answer.value);
    else waiter.reject(rebuild(answer.error));
  });
  thread.on('error', (error) => fail(error));
  thread.on('exit', (code) => fail(new Error(`the PGlite thread of ${dataDir} exited (code ${code})`)));
  try {
    await started;
  } catch (error) {
    await thread.terminate();
    await lock.release();
    throw error;
  }
  thread.unref();

  const send: Send = (request) => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      thread.ref();
      thread.postMessage({ ...request, id });
    });
  };
  let closing: Promise<void> | undefined;
  return {
    kind: 'pglite',
    ...executor(send, undefined),
    transaction: async (work) => {
      const tx = (await send({ kind: 'begin' })) as number;
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work(executor(send, tx));
      } catch (error) {
        await send({ kind: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await send({ kind: 'end', tx, commit: true });
      return result;
    },
    close: () => {
      closing ??= (async () => {
        try {
          const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
          await send({ kind: 'close' });
          // Held until the thread has ended, so the process does not exit under it.
          thread.ref();
          await exited;
        } finally {
          await thread.terminate();
          await lock.release();
        }
      })();
      return closing;
    },
  };
}
