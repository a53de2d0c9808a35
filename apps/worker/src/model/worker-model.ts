import { createResponsesModel, type ResponsesModel } from '@switchyard/core';
import OpenAI from 'openai';
import type { ModelEndpoint } from '../config/resolve-model-endpoint';
import type { WorkerConfig } from '../config/worker-config';
import { backoffFetch, endpointBackoffOf } from './endpoint-backoff';

/** The endpoint the SDK talks to when no base URL is configured. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** What a model's requests take from the configuration's `model` section. */
export type WorkerModelSettings = Pick<
  WorkerConfig['model'],
  'maxRetries' | 'chaining' | 'stream' | 'reasoningEffort' | 'maxOutputTokens' | 'maxResponseBytes'
>;

/**
 * `fetch` as the model's requests use it: a redirect is an error, not followed. A model endpoint is
 * called as configured (a redirected POST would resend the key and the body wherever it points), and
 * a fetch that may follow one keeps a second copy of every request body until its answer ends: with
 * 2,000 requests in flight, 15 KB each of a request's 70 KB. A failure names its root cause (fetch's
 * own message is `fetch failed`, the reason in its cause: `unexpected redirect`, `connect
 * ECONNREFUSED ...`), which the SDK's `Connection error.` then carries.
 */
export const modelFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, { ...init, redirect: 'error' });
  } catch (error) {
    if (init?.signal?.aborted || !(error instanceof Error) || error.name === 'AbortError') throw error;
    const reasons = [error.message];
    for (let cause = error.cause; cause instanceof Error && reasons.length < 4; cause = cause.cause) {
      reasons.push(cause.message);
    }
    throw new TypeError(reasons.join(': '), { cause: error });
  }
};

/**
 * Creates the Responses model of a configuration's endpoint. Every model of the process (of the
 * thread, for `startThreadedModel`) made for one base URL shares that endpoint's back-off
 * (`endpointBackoffOf`): a 429 or 5xx told to one turn holds back the requests of all of them until
 * its `Retry-After` (at most 60 s). A redirect fails the request (`modelFetch`).
 */
export function createWorkerModel(settings: WorkerModelSettings, endpoint: ModelEndpoint): ResponsesModel {
  return createResponsesModel({
    client: new OpenAI({
      apiKey: endpoint.apiKey,
      maxRetries: settings.maxRetries,
      ...(endpoint.baseURL === undefined ? {} : { baseURL: endpoint.baseURL }),
      // An endpoint's 429s and 5xx hold back every turn of this process, not only the one told.
      fetch: backoffFetch(endpointBackoffOf(endpoint.baseURL ?? OPENAI_BASE_URL), modelFetch),
    }),
    model: endpoint.model,
    chaining: settings.chaining,
    stream: settings.stream,
    maxResponseBytes: settings.maxResponseBytes,
    ...(settings.reasoningEffort === undefined ? {} : { reasoning: { effort: settings.reasoningEffort } }),
    ...(settings.maxOutputTokens === undefined ? {} : { max_output_tokens: settings.maxOutputTokens }),
  });
}
