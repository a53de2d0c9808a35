import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { RenderedPage, RenderRequest } from './render-page';
import type { RenderTask } from './render-worker';

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
 * Threads kept loaded when idle: one, so pages fetched minutes apart do not each pay a thread start
 * (about a second of loading linkedom, Readability and turndown on a loaded machine); one stopped
 * at a deadline is replaced at once. A second starts when two renders want a thread at once and
 * stops after `IDLE_MS` unused. Keeping both loaded would spare a render right after a deadline
 * that thread start, for about 80 MB more resident memory in every idle process (measured from
 * source). Idle threads never keep the process alive (piscina unrefs a thread without a task).
 */
const MIN_RENDER_THREADS = 1;
/** How long a second thread may stay unused before it is stopped. */
const IDLE_MS = 30_000;
/** Heap of one render thread: a page that needs more fails that render, not the process. */
export const RENDER_THREAD_HEAP_MB = 512;

/**
 * The threads' entry. From dist/ it is the built render-worker.js; from src/ (tests, benchmarks) the
 * worker must load TypeScript, and tsx's loader registered in this thread does not reach it, so a
 * small module registers tsx in the thread first (render-worker-from-source.mjs, never built).
 */
function workerEntry(): string {
  const here = import.meta.url;
  return fileURLToPath(
    new URL(here.endsWith('.ts') ? './render-worker-from-source.mjs' : './render-worker.js', here),
  );
}

function describeWorkerError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `the renderer ran out of memory (its heap is limited to ${RENDER_THREAD_HEAP_MB} MB)`;
  }
  return `the renderer failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** Why a render's piscina task was aborted, when it was this module that aborted it. */
type EndReason = Extract<RenderOutcome, { ok: false }>;

/**
 * Long-lived worker threads that render fetched pages (a piscina pool), so that no page, however it
 * is built, can block the event loop that runs every agent's turn: a render that misses its deadline
 * is aborted, and piscina terminates its thread (and starts another when none is left).
 *
 * Piscina owns the threads, the queue and termination; this owns the deadline, which starts when a
 * thread takes the render (the task's first act is to say so on a port of its own), and turns each
 * way a render can end into a `RenderOutcome`.
 */
class RenderPool {
  private readonly pool: Piscina<RenderTask, RenderedPage>;
  /** Every render in flight: `close` ends them. */
  private readonly renders = new Set<(reason: EndReason) => void>();
  /** Renders queued or waiting for a thread to load: a thread that cannot load fails them. */
  private readonly waiting = new Set<(reason: EndReason) => void>();
  /** Threads started so far (tests check that a normal page reuses one). */
  started = 0;

  constructor() {
    this.pool = new Piscina<RenderTask, RenderedPage>({
      filename: workerEntry(),
      minThreads: MIN_RENDER_THREADS,
      maxThreads: MAX_RENDER_THREADS,
      idleTimeout: IDLE_MS,
      resourceLimits: { maxOldGenerationSizeMb: RENDER_THREAD_HEAP_MB },
    });
    this.pool.on('workerCreate', () => {
      this.started += 1;
    });
    // A thread that failed with no render on it: it could not load. Starting another for the same
    // renders would fail the same way, so they fail now instead of waiting for their signal.
    this.pool.on('error', (error: unknown) => {
      const message = `could not start the renderer: ${describeWorkerError(error)}`;
      for (const end of [...this.waiting]) end({ ok: false, failure: 'worker', message });
    });
  }

  /** Threads alive now. */
  get alive(): number {
    return this.pool.threads.length;
  }

  async run(request: RenderRequest, options: RenderOptions): Promise<RenderOutcome> {
    if (options.signal.aborted) {
      return { ok: false, failure: 'aborted', message: 'cancelled before rendering' };
    }
    const controller = new AbortController();
    let ended: EndReason | undefined;
    const end = (reason: EndReason) => {
      if (ended !== undefined) return;
      ended = reason;
      controller.abort();
    };
    const onAbort = () => end({ ok: false, failure: 'aborted', message: 'the render was cancelled' });
    options.signal.addEventListener('abort', onAbort, { once: true });
    const { port1: started, port2: startedInThread } = new MessageChannel();
    let deadline: ReturnType<typeof setTimeout> | undefined;
    started.once('message', () => {
      this.waiting.delete(end);
      const { conversionTimeoutMs } = options;
      deadline = setTimeout(
        () =>
          end({
            ok: false,
            failure: 'conversion-timeout',
            message: `rendering took longer than ${conversionTimeoutMs} ms`,
          }),
        conversionTimeoutMs,
      );
    });
    this.renders.add(end);
    this.waiting.add(end);
    try {
      // The body is not transferred: the caller keeps it for a fallback render. A body in a
      // SharedArrayBuffer (as fetchPage reads it) is shared, not copied.
      const page = await this.pool.run(
        { request, started: startedInThread },
        { transferList: [startedInThread], signal: controller.signal },
      );
      return { ok: true, page };
    } catch (error) {
      return ended ?? { ok: false, failure: 'worker', message: describeWorkerError(error) };
    } finally {
      this.renders.delete(end);
      this.waiting.delete(end);
      clearTimeout(deadline);
      started.close();
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Stops every thread and fails every render in flight (for tests and shutdown). */
  async close(): Promise<void> {
    for (const end of [...this.renders]) {
      end({ ok: false, failure: 'aborted', message: 'the renderer was closed' });
    }
    await this.pool.destroy();
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
