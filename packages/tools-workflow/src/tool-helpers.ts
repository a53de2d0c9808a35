import type { AgentToolResult } from '@switchyard/core';
import { WorkflowToolsConfigError } from './errors/workflow-tools-config-error';

/** Shared by the tool-set creators: a thrown service error as a result the model can act on. */
export function failure(action: string, error: unknown): AgentToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: `Could not ${action}: ${message}`, isError: true, details: { error: message } };
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
