// The thread that runs an embedded PGlite database for `openPgliteDatabase`, so its WebAssembly
// (every query, checkpoint and start-up) runs off the daemon's event loop. It speaks a small
// request/answer protocol over its parent port; see `open-pglite-database.ts`.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { PgliteRequest, PgliteThreadData } from './pglite-protocol';

const port = parentPort;
if (port === null) throw new Error('pglite-thread.js runs only as a worker thread');
const { dataDir, extraStartParams } = workerData as PgliteThreadData;

/** Open transactions by id: their executor and how to end them. */
const transactions = new Map<number, { executor: Transaction; end: (commit: boolean) => void }>();
let nextTransaction = 1;
/** The request id that ended each transaction, answered once PGlite has committed or rolled back. */
const endings = new Map<number, number>();

function answer(id: number, work: () => Promise<unknown>): void {
  work().then(
    (value) => port?.postMessage({ id, ok: true, value }),
    (error: unknown) => port?.postMessage({ id, ok: false, error: describeError(error) }),
  );
}

/** An error as plain data: its message, name, stack and own fields (PostgreSQL's `code`, `detail`, ...). */
function describeError(error: unknown) {
  if (!(error instanceof Error)) return { message: String(error), name: 'Error', fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function') continue;
    // Only what survives a structured clone: the result and query of a database error are dropped.
    if (typeof value === 'object' && value !== null) continue;
    fields[key] = value;
  }
  return { message: error.message, name: error.name, stack: error.stack, fields };
}

const ROLLBACK = Symbol('rollback');

const pglite = await PGlite.create(dataDir, {
  startParams: [...PGlite.defaultStartParams, ...extraStartParams],
}).catch((error: unknown) => {
  port.postMessage({ id: 0, ok: false, error: describeError(error) });
  return undefined;
});
if (pglite !== undefined) {
  port.on('message', (request: PgliteRequest) => {
    const target = (tx: number | undefined) => {
      if (tx === undefined) return pglite;
      const open = transactions.get(tx);
      if (open === undefined) throw new Error(`transaction ${tx} is not open`);
      return open.executor;
    };
    switch (request.kind) {
      case 'query':
        answer(request.id, async () => {
          const result = await target(request.tx).query(request.text, request.values);
          return result.rows;
        });
        return;
      case 'exec':
        answer(request.id, async () => {
          const results = await target(request.tx).exec(request.text);
          return results.at(-1)?.rows ?? [];
        });
        return;
      case 'begin': {
        const tx = nextTransaction++;
        let begun = false;
        // The transaction stays open until the parent ends it: its callback waits for that request.
        pglite
          .transaction(
            (executor) =>
              new Promise<void>((resolve, reject) => {
                transactions.set(tx, { executor, end: (commit) => (commit ? resolve() : reject(ROLLBACK)) });
                begun = true;
                port.postMessage({ id: request.id, ok: true, value: tx });
              }),
          )
          .then(
            () => finish(tx, undefined),
            (error: unknown) => finish(tx, error === ROLLBACK ? undefined : error),
          );
        const finish = (id: number, error: unknown) => {
          transactions.delete(id);
          // Not begun: BEGIN itself failed, and the answer goes to the `begin` request.
          const answerId = begun ? endings.get(id) : request.id;
          endings.delete(id);
          if (answerId === undefined) return;
          port.postMessage(
            error === undefined
              ? { id: answerId, ok: true, value: null }
              : { id: answerId, ok: false, error: describeError(error) },
          );
        };
        return;
      }
      case 'end': {
        const open = transactions.get(request.tx);
        if (open === undefined) {
          port.postMessage({
            id: request.id,
            ok: false,
            error: describeError(new Error(`transaction ${request.tx} is not open`)),
          });
          return;
        }
        endings.set(request.tx, request.id);
        open.end(request.commit);
        return;
      }
      case 'close':
        // Answered before the port closes; the thread then ends on its own.
        pglite.close().then(
          () => {
            port.postMessage({ id: request.id, ok: true, value: null });
            port.close();
          },
          (error: unknown) => port.postMessage({ id: request.id, ok: false, error: describeError(error) }),
        );
        return;
    }
  });
  port.postMessage({ id: 0, ok: true, value: null });
}
