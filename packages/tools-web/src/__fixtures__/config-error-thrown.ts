import { thrownBy } from '@switchyard/test-support';
import { WebToolsConfigError } from '../errors/web-tools-config-error';

/** Calls `create`, fails the test unless it threw a `WebToolsConfigError`, and returns it (to check its `field`). */
export function configErrorThrown(create: () => unknown): WebToolsConfigError {
  return thrownBy(create, WebToolsConfigError);
}
