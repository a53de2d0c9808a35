import { afterAll, beforeAll } from 'vitest';

/**
 * Opens what `open` gives before the tests of the suite (file or `describe`) it is called in, and
 * closes it after them, each within `timeoutMs`: the tests read it through the getter returned, which
 * throws while it is not open (a `beforeAll` that failed).
 */
export function openForSuite<Resource extends { close(): Promise<void> }>(
  open: () => Promise<Resource>,
  timeoutMs = 180_000,
): () => Resource {
  let resource: Resource | undefined;
  beforeAll(async () => {
    resource = await open();
  }, timeoutMs);
  afterAll(async () => {
    await resource?.close();
  }, timeoutMs);
  return () => {
    if (resource === undefined)
      throw new Error('the suite’s test bed is not open: see the beforeAll failure');
    return resource;
  };
}
