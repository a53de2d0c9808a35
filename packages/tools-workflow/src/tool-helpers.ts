import type { AgentToolResult } from '@switchyard/core';
import { WorkflowToolsConfigError } from './errors/workflow-tools-config-error';

/** Shared by the tool-set creators: a thrown service error as a result the model can act on. */
export function failure(action: string, error: unknown): AgentToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: `Could not ${action}: ${message}`, isError: true, details: { error: message } };
}

/**
 * Shared by the tools: calls the service and turns its answer into the tool's result with `answer`.
 * Only the service call is guarded: when it throws, the result is `failure(action, error)`.
 */
export async function callService<T>(
  action: string,
  call: () => Promise<T>,
  answer: (value: T) => AgentToolResult,
): Promise<AgentToolResult> {
  let value: T;
  try {
    value = await call();
  } catch (error) {
    return failure(action, error);
  }
  return answer(value);
}

/**
 * Shared by the tool-set creators: `service` when it has every one of `methods`, else a
 * `WorkflowToolsConfigError` naming `field` and the first method missing.
 */
export function checkService<Service>(
  service: Service | undefined,
  field: string,
  interfaceName: string,
  methods: readonly (keyof Service & string)[],
): Service {
  for (const method of methods) {
    if (typeof service?.[method] !== 'function') {
      throw new WorkflowToolsConfigError({
        field,
        message: `must implement ${interfaceName} (missing ${method})`,
      });
    }
  }
  return service as Service;
}

/** Shared by the tool-set creators: a non-empty string or a `WorkflowToolsConfigError` naming the field. */
export function checkAgentId(agentId: unknown): string {
  if (typeof agentId !== 'string' || agentId.trim() === '') {
    throw new WorkflowToolsConfigError({
      field: 'agentId',
      message: `must be a non-empty string, got ${JSON.stringify(agentId)}`,
    });
  }
  return agentId;
}
