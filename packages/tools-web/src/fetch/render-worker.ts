// The entry of the worker threads that render fetched pages (see render-pool.ts). It answers one
// request at a time; the pool terminates the thread when a request misses its deadline.
import { parentPort } from 'node:worker_threads';
import { type RenderRequest, renderPage } from './render-page';

/** A request from the pool. */
interface RenderMessage {
  id: number;
  request: RenderRequest;
}

const port = parentPort;
if (port === null) throw new Error('render-worker.ts runs only as a worker thread');
port.on('message', ({ id, request }: RenderMessage) => {
  try {
    port.postMessage({ id, ok: true, page: renderPage(request) });
  } catch (error) {
    // renderPage does not throw; an out-of-memory error or a defect still gets an answer.
    port.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
// Everything above is loaded: requests from now on are timed from when they are sent.
port.postMessage({ ready: true });
