import { afterAll, beforeAll } from 'vitest';

/** How `openForSuite` opens and closes what a suite's tests share. */
export interface SuiteResourceOptions<Resource> {
  /** Closes it (default: its own `close()`). */
  close?: (resource: Resource) => Promise<unknown>;
  /** The time opening, and then closing, may take (default: 3 minutes). */
  timeoutMs?: number;
}

/**
 * Opens what `open` gives before the tests of the suite (file or `describe`) it is called in, and
 * closes it after them: the tests read it through the getter returned, which throws while it is not
 * open (a `beforeAll` that failed).
 */
export function openForSuite<Resource>(
  open: () => Promise<Resource>,
  ...[options]: Resource extends { close(): Promise<void> }
    ? [options?: SuiteResourceOptions<Resource>]
    : [options: SuiteResourceOptions<Resource> & { close: (resource: Resource) => Promise<unknown> }]
): () => Resource {
  const timeoutMs = options?.timeoutMs ?? 180_000;
  const close = options?.close ?? ((opened: Resource) => (opened as { close(): Promise<void> }).close());
  let resource: Resource | undefined;
  beforeAll(async () => {
    resource = await open();
  }, timeoutMs);
  afterAll(async () => {
    if (resource !== undefined) await close(resource);
  }, timeoutMs);
  return () => {
    if (resource === undefined)
      throw new Error('the suite’s test bed is not open: see the beforeAll failure');
    return resource;
  };
}
