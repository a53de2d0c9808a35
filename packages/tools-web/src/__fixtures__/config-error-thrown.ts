import { expect } from 'vitest';
import { WebToolsConfigError } from '../errors/web-tools-config-error';

/** Calls `create`, asserts it threw a `WebToolsConfigError`, and returns it (to check its `field`). */
export function configErrorThrown(create: () => unknown): WebToolsConfigError {
  let caught: unknown;
  try {
    create();
  } catch (error) {
    caught = error;
  }
  expect(WebToolsConfigError.isInstance(caught)).toBe(true);
  return caught as WebToolsConfigError;
}
