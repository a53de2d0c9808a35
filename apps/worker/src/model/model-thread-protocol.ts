// The messages between the daemon's event loop and the thread its model requests run in
// (`startThreadedModel`, `model-thread.ts`). Everything crosses by structured clone.
import type { ResponsesModel } from '@switchyard/core';
import type { ModelEndpoint } from '../config/resolve-model-endpoint';
import type { WorkerModelSettings } from './worker-model';

/** One request as the loop hands it to a model. */
export type ModelRequest = Parameters<ResponsesModel['respond']>[0];

/** A model's answer to one request. */
export type ModelResponse = Awaited<ReturnType<ResponsesModel['respond']>>;

/** What the thread is started with: what `createWorkerModel` takes. */
export interface ModelThreadData {
  settings: WorkerModelSettings;
  endpoint: ModelEndpoint;
}

/** A request as it crosses: without its signal and its callback, which stay on the daemon's side. */
export type ThreadRequest = Omit<ModelRequest, 'signal' | 'onTextDelta'>;

/**
 * To the thread: send a request, abort one, or forget a tool list no request under way uses.
 *
 * A request names its tool list by a number (`toolSet`) and carries the list only the first time
 * the thread hears of it: thousands of turns in flight on one agent send the same list, which the
 * thread then holds once instead of once a request.
 */
export type ToModelThread =
  | {
      type: 'respond';
      id: number;
      request: Omit<ThreadRequest, 'tools'>;
      toolSet: number;
      tools?: ThreadRequest['tools'];
    }
  | { type: 'abort'; id: number }
  | { type: 'forget'; toolSet: number };

/** An error as it crosses back: what it takes to rebuild it. */
export interface ThreadError {
  name: string;
  message: string;
  /** Whether it was a `ModelRequestError`, and its HTTP status. */
  modelRequestError: boolean;
  status?: number;
}

/**
 * From the thread: ready once the model is made (or `failed` with id 0 when it cannot be), the text
 * read since the last such message of each request that streamed some (`[id, text]`, the request's
 * deltas joined), a request's answer, or its error. A request's text comes before its answer.
 */
export type FromModelThread =
  | { type: 'ready'; model: string; defaultToolSearch: ResponsesModel['defaultToolSearch'] }
  | { type: 'deltas'; deltas: Array<[id: number, text: string]> }
  | { type: 'done'; id: number; response: ModelResponse }
  | { type: 'failed'; id: number; error: ThreadError };
