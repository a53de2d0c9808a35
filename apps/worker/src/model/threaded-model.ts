import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { ModelRequestError, type ResponsesModel } from '@switchyard/core';
import type { ModelEndpoint } from '../config/resolve-model-endpoint';
import type {
  FromModelThread,
  ModelRequest,
  ModelResponse,
  ModelThreadData,
  ThreadError,
  ToModelThread,
} from './model-thread-protocol';
import type { WorkerModelSettings } from './worker-model';

/** The built thread script: beside this module in dist/, or in dist/ when running from src/ (tests). */
function threadScript(): URL {
  const candidates = [
    new URL('./model-thread.js', import.meta.url),
    new URL('../../dist/model-thread.js', import.meta.url),
  ];
  const found = candidates.find((candidate) => existsSync(fileURLToPath(candidate)));
  if (found === undefined) {
    throw new Error(
      `model-thread.js is missing beside ${fileURLToPath(import.meta.url)}: build @switchyard/worker`,
    );
  }
  return found;
}

function rebuild(error: ThreadError): Error {
  if (error.modelRequestError) {
    return new ModelRequestError({
      message: error.message,
      ...(error.status === undefined ? {} : { status: error.status }),
    });
  }
  return Object.assign(new Error(error.message), { name: error.name });
}

/** As the in-process model rejects on an abort: the signal's reason when it is an error. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The turn was aborted');
}

/** A request waiting for its answer. */
interface Waiter {
  resolve(response: ModelResponse): void;
  reject(error: Error): void;
  onTextDelta(delta: string): void;
  /** Its tool list's key in `toolSets`. */
  toolsKey: string;
}

/** A tool list the thread holds: its number there, and how many requests under way use it. */
interface ToolSet {
  id: number;
  users: number;
}

/**
 * Each tool list's JSON, kept while the list lives (a turn sends the same list on each iteration). A
 * list is never changed in place: its type is read-only, and the loop makes a new one when the
 * turn's tools change.
 */
const toolsJson = new WeakMap<ModelRequest['tools'], string>();

function keyOf(tools: ModelRequest['tools']): string {
  let key = toolsJson.get(tools);
  if (key === undefined) {
    key = JSON.stringify(tools);
    toolsJson.set(tools, key);
  }
  return key;
}

/** What the thread said when it was ready. */
type Ready = Extract<FromModelThread, { type: 'ready' }>;

/** One thread and the requests it carries; once it stops, every one of them rejects, and so does every later one. */
class ModelThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter>();
  /** The tool lists sent to the thread and used by a request under way, by their JSON. */
  readonly #toolSets = new Map<string, ToolSet>();
  #nextId = 1;
  #nextToolSet = 1;
  #stopped: Error | undefined;
  readonly ready: Promise<Ready>;

  constructor(data: ModelThreadData, resourceLimits: ResourceLimits | undefined) {
    this.#worker = new Worker(threadScript(), {
      workerData: data,
      ...(resourceLimits === undefined ? {} : { resourceLimits }),
    });
    let markReady: (ready: Ready) => void = () => {};
    let failStart: (error: Error) => void = () => {};
    this.ready = new Promise<Ready>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    this.ready.catch(() => {});
    this.#worker.on('message', (message: FromModelThread) => {
      if (message.type === 'ready') {
        // Nothing waits on an idle thread: it does not keep the process alive.
        if (this.#waiting.size === 0) this.#worker.unref();
        markReady(message);
        return;
      }
      if (message.type === 'deltas') {
        for (const [id, text] of message.deltas) this.#waiting.get(id)?.onTextDelta(text);
        return;
      }
      if (message.id === 0 && message.type === 'failed') {
        failStart(rebuild(message.error));
        return;
      }
      const waiter = this.#waiting.get(message.id);
      if (waiter === undefined) return;
      this.#settled(message.id);
      if (message.type === 'done') waiter.resolve(message.response);
      else waiter.reject(rebuild(message.error));
    });
    // A thread that cannot make the model says why (`failed`, id 0) and throws it: whichever of the
    // message and the thread's error comes first fails the start with that reason.
    const stop = (reason: string, startError: Error) => {
      failStart(startError);
      if (this.#stopped !== undefined) return;
      this.#stopped = new ModelRequestError({
        message: `the model thread stopped (${reason}): the request was not answered`,
      });
      for (const waiter of this.#waiting.values()) waiter.reject(this.#stopped);
      this.#waiting.clear();
    };
    this.#worker.on('error', (error) => stop(error.message, error));
    this.#worker.on('exit', (code) =>
      stop(`exit code ${code}`, new Error(`the thread exited (code ${code})`)),
    );
  }

  /** Whether the thread has stopped (a later request needs a new one). */
  get stopped(): boolean {
    return this.#stopped !== undefined;
  }

  #settled(id: number): void {
    const waiter = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (waiter !== undefined) this.#release(waiter.toolsKey);
    if (this.#waiting.size === 0) this.#worker.unref();
  }

  /** One request fewer uses the tool list; the thread forgets a list none uses. */
  #release(key: string): void {
    const set = this.#toolSets.get(key);
    if (set === undefined || --set.users > 0) return;
    this.#toolSets.delete(key);
    if (this.#stopped === undefined) this.#send({ type: 'forget', toolSet: set.id });
  }

  #send(message: ToModelThread): void {
    this.#worker.postMessage(message);
  }

  respond({ signal, onTextDelta, tools, ...request }: ModelRequest): Promise<ModelResponse> {
    return new Promise<ModelResponse>((resolve, reject) => {
      if (this.#stopped !== undefined) return reject(this.#stopped);
      if (signal?.aborted) return reject(abortError(signal));
      const id = this.#nextId++;
      const toolsKey = keyOf(tools);
      const known = this.#toolSets.get(toolsKey);
      const toolSet = known ?? { id: this.#nextToolSet++, users: 0 };
      const onAbort = () => {
        this.#settled(id);
        this.#send({ type: 'abort', id });
        reject(abortError(signal as AbortSignal));
      };
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          signal?.removeEventListener('abort', onAbort);
          then(value);
        };
      try {
        const first = known === undefined ? { tools } : {};
        this.#send({ type: 'respond', id, request, toolSet: toolSet.id, ...first });
      } catch (error) {
        // A request that cannot be cloned never left (nor did its tool list, when it was new).
        return reject(error as Error);
      }
      toolSet.users++;
      this.#toolSets.set(toolsKey, toolSet);
      this.#waiting.set(id, { resolve: settle(resolve), reject: settle(reject), onTextDelta, toolsKey });
      if (this.#waiting.size === 1) this.#worker.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

/** Options of `startThreadedModel`. */
export interface ThreadedModelOptions {
  /** The thread's heap limits (Node's `resourceLimits`); by default Node's, as for the process. */
  resourceLimits?: ResourceLimits;
}

/** The model of `startThreadedModel`. */
export interface ThreadedModel extends ResponsesModel {
  /** Stops the thread; requests still under way reject. */
  close(): Promise<void>;
}

/**
 * The configured model (`createWorkerModel`), its requests made on a thread of their own: the SDK's
 * encoding of each request body, its HTTP exchange and the reading of the response's event stream
 * run there, and only the request and the finished response (and each piece of streamed text) cross
 * to the caller's event loop. With 2,000 turns in flight on one `serve`, that work was half of the
 * event loop's time, and a `/healthz` probe or a new `POST` waited behind it (see the README).
 *
 * Contract: resolves once the thread has made the model; rejects with the thread's error when it
 * cannot (the script missing: build @switchyard/worker). `respond` behaves as the model's: it
 * rejects with `ModelRequestError` (status kept) as the model does, and promptly with the signal's
 * reason on an abort, which aborts the request in the thread. If the thread stops (out of memory,
 * say), the requests it carried reject with `ModelRequestError` and the next request starts a new
 * thread. An idle thread does not keep the process alive.
 */
export async function startThreadedModel(
  settings: WorkerModelSettings,
  endpoint: ModelEndpoint,
  options: ThreadedModelOptions = {},
): Promise<ThreadedModel> {
  const data: ModelThreadData = { settings, endpoint };
  let thread = new ModelThread(data, options.resourceLimits);
  const ready = await thread.ready.catch(async (error: unknown) => {
    await thread.terminate();
    throw new Error(`the model thread did not start: ${(error as Error).message}`);
  });
  let closed = false;
  return {
    model: ready.model,
    defaultToolSearch: ready.defaultToolSearch,
    respond: async (request) => {
      if (closed) throw new ModelRequestError({ message: 'the model was closed: the request was not sent' });
      if (thread.stopped) {
        thread = new ModelThread(data, options.resourceLimits);
        await thread.ready;
      }
      return thread.respond(request);
    },
    close: async () => {
      closed = true;
      await thread.terminate();
    },
  };
}
