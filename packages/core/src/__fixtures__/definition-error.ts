// Shared by core's tests that check a definition mistake is refused with the right error.
import { thrownBy } from '@switchyard/test-support';
import { ToolDefinitionError } from '../errors/tool-definition-error';

/**
 * The `ToolDefinitionError` that `run` throws. Anything else it throws is rethrown as it is, and
 * throwing nothing fails the test.
 */
export function definitionError(run: () => unknown): ToolDefinitionError {
  return thrownBy(run, ToolDefinitionError);
}
