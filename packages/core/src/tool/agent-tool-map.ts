import { ToolDefinitionError } from '../errors/tool-definition-error';
import type { AnyWorkerAgentTool } from './worker-agent-tool';

/** The dispatch key of a tool: `name`, or `namespace.name` for a namespaced tool. */
export function toolKey(tool: { readonly name: string; readonly namespace?: string | undefined }): string {
  return tool.namespace === undefined ? tool.name : `${tool.namespace}.${tool.name}`;
}

/**
 * Indexes a turn's tools for dispatch: keyed by `name`, or `namespace.name` for namespaced tools
 * (names cannot contain `.`, so keys never collide across the two forms). A function call is looked
 * up with `toolKey({ name: call.name, namespace: call.namespace })`.
 *
 * Contract: throws `ToolDefinitionError` naming both tools when two share a key.
 */
export function agentToolMap<TTool extends AnyWorkerAgentTool>(tools: readonly TTool[]): Map<string, TTool> {
  const map = new Map<string, TTool>();
  const positions = new Map<string, number>();
  tools.forEach((tool, index) => {
    const key = toolKey(tool);
    const previous = positions.get(key);
    if (previous !== undefined) {
      throw new ToolDefinitionError({
        toolName: tool.name,
        field: 'name',
        message: `duplicate tool key '${key}': the tools at positions ${previous} and ${index} of the tool set both use it`,
      });
    }
    positions.set(key, index);
    map.set(key, tool);
  });
  return map;
}
