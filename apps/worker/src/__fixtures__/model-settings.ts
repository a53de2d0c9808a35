import { DEFAULT_MAX_RESPONSE_BYTES } from '@switchyard/core';
import { afterEach } from 'vitest';
import type { WorkerModelSettings } from '../model/worker-model';

/** The model settings of the model tests: no retries (a failure is seen at once), streaming, stateless. */
export const MODEL_SETTINGS: WorkerModelSettings = {
  maxRetries: 0,
  chaining: 'stateless',
  stream: true,
  reasoningEffort: undefined,
  maxOutputTokens: undefined,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
};

/** What a test opened (servers, models), closed after each test of the file whatever happened. */
export function closedAfterEach(): Array<() => Promise<void>> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return closers;
}
