// The thread `startThreadedModel` runs the daemon's model requests in: each request's HTTP exchange,
// the SDK's encoding of its body and the reading of its event stream happen here, off the event
// loop that serves the daemon's API and runs its turns. Built as its own entry (dist/model-thread.js).
import { parentPort, workerData } from 'node:worker_threads';
import { ModelRequestError } from '@switchyard/core';
import type { FromModelThread, ModelThreadData, ThreadError, ToModelThread } from './model-thread-protocol';
import { createWorkerModel } from './worker-model';

const port = parentPort;
if (port === null) throw new Error('model-thread.js runs as a worker thread (startThreadedModel)');
const send = (message: FromModelThread) => port.postMessage(message);

function threadError(error: unknown): ThreadError {
  const modelRequestError = ModelRequestError.isInstance(error);
  return {
    name: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
    modelRequestError,
    ...(modelRequestError && error.status !== undefined ? { status: error.status } : {}),
  };
}

const { settings, endpoint } = workerData as ModelThreadData;
let model: ReturnType<typeof createWorkerModel>;
try {
  model = createWorkerModel(settings, endpoint);
} catch (error) {
  send({ type: 'failed', id: 0, error: threadError(error) });
  throw error;
}
/**
 * Text deltas read and not yet sent, joined by request id. They cross in one message per turn of
 * this thread's event loop (`sendDeltas`), not one each: a stream read in one piece is thousands of
 * deltas, each a message and an event on the daemon's event loop otherwise (about 3 µs each there).
 * A request's deltas are sent before its answer or its error.
 */
const unsentDeltas = new Map<number, string>();
let deltasQueued = false;
function sendDeltas(): void {
  deltasQueued = false;
  if (unsentDeltas.size === 0) return;
  send({ type: 'deltas', deltas: [...unsentDeltas] });
  unsentDeltas.clear();
}
function queueDelta(id: number, delta: string): void {
  unsentDeltas.set(id, (unsentDeltas.get(id) ?? '') + delta);
  if (deltasQueued) return;
  deltasQueued = true;
  setImmediate(sendDeltas);
}

/** The requests under way, by id: what aborts each. */
const open = new Map<number, AbortController>();
/** The tool lists the daemon has sent, by number, until it says no request uses one. */
const toolSets = new Map<number, ToolList>();
type ToolList = NonNullable<Extract<ToModelThread, { type: 'respond' }>['tools']>;

port.on('message', (message: ToModelThread) => {
  if (message.type === 'abort') {
    open.get(message.id)?.abort(new Error('The turn was aborted'));
    return;
  }
  if (message.type === 'forget') {
    toolSets.delete(message.toolSet);
    return;
  }
  const { id, request } = message;
  if (message.tools !== undefined) toolSets.set(message.toolSet, message.tools);
  const tools = toolSets.get(message.toolSet);
  if (tools === undefined) {
    // Never sent without its tools: a request is failed rather than sent with none.
    const error = new Error(`the model thread does not hold tool list ${message.toolSet}`);
    send({ type: 'failed', id, error: threadError(error) });
    return;
  }
  const controller = new AbortController();
  open.set(id, controller);
  model
    .respond({
      ...request,
      tools,
      signal: controller.signal,
      onTextDelta: (delta) => queueDelta(id, delta),
    })
    .then(
      (response) => {
        sendDeltas();
        send({ type: 'done', id, response });
      },
      (error: unknown) => {
        sendDeltas();
        send({ type: 'failed', id, error: threadError(error) });
      },
    )
    // A message that cannot be sent (a response that cannot be cloned) fails its own request: the
    // others of this thread go on, and this one is answered rather than waited on until its turn's limit.
    .catch((error: unknown) => send({ type: 'failed', id, error: threadError(error) }))
    .finally(() => open.delete(id));
});
send({ type: 'ready', model: model.model, defaultToolSearch: model.defaultToolSearch });
