import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RenderedPage, RenderRequest } from './render-page';

/** How a render ended: the page, or why there is none. */
export type RenderOutcome =
  | {
      /** The page was rendered. */
      ok: true;
      /** The rendered page. */
      page: RenderedPage;
    }
  | {
      /** No page. */
      ok: false;
      /**
       * `conversion-timeout`: it ran longer than `conversionTimeoutMs` (the thread was stopped);
       * `aborted`: `signal` fired first (the fetch's deadline or the turn's abort); `worker`: the
       * thread failed (out of memory, or it could not start).
       */
      failure: 'conversion-timeout' | 'aborted' | 'worker';
      /** What happened, in words. */
      message: string;
    };

/** Limits of one render. */
export interface RenderOptions {
  /** Longest the render may run once a thread has taken it (waiting for a thread is not counted). */
  conversionTimeoutMs: number;
  /** Ends the render wherever it is: queued, waiting for a thread to start, or running. */
  signal: AbortSignal;
}

/** Threads at most: two renders run at once, more wait (their deadlines run while they wait). */
export const MAX_RENDER_THREADS = 2;
/**
 * A second thread is stopped after this long idle; the last one stays (unref'd), so pages fetched
 * minutes apart do not each pay a thread start (about a second of loading linkedom, Readability and
 * turndown on a loaded machine).
 */
const IDLE_MS = 30_000;
/** Heap of one render thread: a page that needs more fails that render, not the process. */
export const RENDER_THREAD_HEAP_MB = 512;

// Started with `eval` so one path serves both layouts: from dist/ the entry is the built
// render-worker.js; from src/ (tests, benchmarks) it is render-worker.ts, which needs tsx's loader.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();
`;

function workerEntry(): { entry: string; tsx?: string } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { entry: new URL('./render-worker.js', here).href };
  return {
    entry: new URL('./render-worker.ts', here).href,
    tsx: pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href,
  };
}

interface Job {
  readonly id: number;
  readonly request: RenderRequest;
  readonly options: RenderOptions;
  readonly resolve: (outcome: RenderOutcome) => void;
  readonly onAbort: () => void;
  thread?: Thread;
  timer?: ReturnType<typeof setTimeout>;
  settled: boolean;
}

interface Thread {
  readonly worker: Worker;
  ready: boolean;
  job?: Job;
  idleTimer?: ReturnType<typeof setTimeout>;
  gone: boolean;
}

interface WorkerReply {
  ready?: true;
  id?: number;
  ok?: boolean;
  page?: RenderedPage;
  message?: string;
}

function describeWorkerError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `the renderer ran out of memory (its heap is limited to ${RENDER_THREAD_HEAP_MB} MB)`;
  }
  return `the renderer failed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Long-lived worker threads that render fetched pages, so that no page, however it is built, can
 * block the event loop that runs every agent's turn: a render that misses its deadline has its
 * thread terminated, and the next render gets a new one. Threads start on demand (at most
 * `MAX_RENDER_THREADS`; while one renders, a spare is started) and keep the process alive only
 * while rendering; one stays warm, any other stops after 30 s idle.
 */
class RenderPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  /** Threads started so far (tests check that a normal page reuses one). */
  started = 0;

  /** Threads alive now. */
  get alive(): number {
    return this.threads.length;
  }

  run(request: RenderRequest, options: RenderOptions): Promise<RenderOutcome> {
    if (options.signal.aborted) {
      return Promise.resolve({ ok: false, failure: 'aborted', message: 'cancelled before rendering' });
    }
    return new Promise<RenderOutcome>((resolve) => {
      const job: Job = {
        id: this.nextId++,
        request,
        options,
        resolve,
        settled: false,
        onAbort: () => this.abort(job),
      };
      options.signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  /** Stops every thread and fails every render in flight (for tests and shutdown). */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) {
      this.settle(job, { ok: false, failure: 'aborted', message: 'the renderer was closed' });
    }
    await Promise.all(
      this.threads.splice(0).map((thread) => {
        thread.gone = true;
        if (thread.job) {
          this.settle(thread.job, { ok: false, failure: 'aborted', message: 'the renderer was closed' });
        }
        clearTimeout(thread.idleTimer);
        return thread.worker.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const idle = this.threads.find((thread) => thread.ready && thread.job === undefined);
      if (idle !== undefined) {
        this.assign(idle, this.queue.shift() as Job);
        continue;
      }
      const starting = this.threads.filter((thread) => !thread.ready).length;
      if (starting < this.queue.length && this.threads.length < MAX_RENDER_THREADS) {
        this.start();
        continue;
      }
      return;
    }
  }

  private start(): void {
    this.started += 1;
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: workerEntry(),
      resourceLimits: { maxOldGenerationSizeMb: RENDER_THREAD_HEAP_MB },
    });
    // Idle threads never keep the process alive; a busy one does (see assign).
    worker.unref();
    const thread: Thread = { worker, ready: false, gone: false };
    this.threads.push(thread);
    worker.on('message', (reply: WorkerReply) => this.receive(thread, reply));
    worker.on('error', (error: unknown) => this.lose(thread, describeWorkerError(error)));
    worker.on('exit', (code) => this.lose(thread, `the renderer exited (code ${code})`));
  }

  private assign(thread: Thread, job: Job): void {
    clearTimeout(thread.idleTimer);
    thread.job = job;
    job.thread = thread;
    thread.worker.ref();
    job.timer = setTimeout(() => {
      this.settle(job, {
        ok: false,
        failure: 'conversion-timeout',
        message: `rendering took longer than ${job.options.conversionTimeoutMs} ms`,
      });
      this.stop(thread);
    }, job.options.conversionTimeoutMs);
    // Not transferred: the caller keeps the body for a fallback render. A body in a
    // SharedArrayBuffer (as fetchPage reads it) is shared, not copied.
    thread.worker.postMessage({ id: job.id, request: job.request });
    // A spare, so that a render stopped at its deadline falls back (or the next fetch starts)
    // without waiting for a thread to load; it stops again after IDLE_MS unused.
    const spare = this.threads.some((other) => other !== thread && other.job === undefined);
    if (!spare && this.threads.length < MAX_RENDER_THREADS) this.start();
  }

  /** A thread without work: it no longer keeps the process alive, and a second one stops soon. */
  private idle(thread: Thread): void {
    thread.worker.unref();
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => {
      if (this.threads.length > 1 && thread.job === undefined) this.stop(thread);
    }, IDLE_MS);
    thread.idleTimer.unref();
  }

  private receive(thread: Thread, reply: WorkerReply): void {
    // A stopped thread may still deliver a message before it is gone: its work was abandoned.
    if (thread.gone) return;
    if (reply.ready === true) {
      thread.ready = true;
      this.pump();
      if (thread.job === undefined) this.idle(thread);
      return;
    }
    const job = thread.job;
    if (job === undefined || reply.id !== job.id) return;
    thread.job = undefined;
    this.settle(
      job,
      reply.ok === true && reply.page !== undefined
        ? { ok: true, page: reply.page }
        : { ok: false, failure: 'worker', message: `the renderer failed: ${reply.message ?? 'no reason'}` },
    );
    this.idle(thread);
    this.pump();
  }

  /** A thread failed or exited: its render fails, and a thread that never started fails the queue. */
  private lose(thread: Thread, message: string): void {
    if (thread.gone) return;
    thread.gone = true;
    clearTimeout(thread.idleTimer);
    this.remove(thread);
    if (thread.job !== undefined) this.settle(thread.job, { ok: false, failure: 'worker', message });
    if (!thread.ready) {
      // It could not even load: starting another for the same queue would fail the same way.
      for (const job of this.queue.splice(0)) {
        this.settle(job, {
          ok: false,
          failure: 'worker',
          message: `could not start the renderer: ${message}`,
        });
      }
    }
    this.pump();
  }

  private abort(job: Job): void {
    const index = this.queue.indexOf(job);
    if (index !== -1) this.queue.splice(index, 1);
    this.settle(job, { ok: false, failure: 'aborted', message: 'the render was cancelled' });
    const { thread } = job;
    if (thread !== undefined && thread.job === job) this.stop(thread);
  }

  /** Terminates a thread (its work is abandoned); the next render starts a new one. */
  private stop(thread: Thread): void {
    if (thread.gone) return;
    thread.gone = true;
    clearTimeout(thread.idleTimer);
    this.remove(thread);
    thread.job = undefined;
    void thread.worker.terminate();
    this.pump();
  }

  private remove(thread: Thread): void {
    const index = this.threads.indexOf(thread);
    if (index !== -1) this.threads.splice(index, 1);
  }

  private settle(job: Job, outcome: RenderOutcome): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    job.options.signal.removeEventListener('abort', job.onAbort);
    job.resolve(outcome);
  }
}

let pool: RenderPool | undefined;

/**
 * Renders a fetched body in a worker thread (see `renderPage`), within `conversionTimeoutMs` of
 * running and before `signal` fires.
 *
 * Contract: never rejects; the outcome says why there is no page. The event loop pays only for
 * copying the body to the thread and the requested page back.
 */
export function renderInWorker(request: RenderRequest, options: RenderOptions): Promise<RenderOutcome> {
  pool ??= new RenderPool();
  return pool.run(request, options);
}

/** How many render threads were started so far and how many are alive (for tests). */
export function renderThreadStats(): { started: number; alive: number } {
  return { started: pool?.started ?? 0, alive: pool?.alive ?? 0 };
}

/** Stops the render threads (tests call it after their last fetch). */
export async function closeRenderThreads(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}
