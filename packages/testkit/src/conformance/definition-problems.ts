import { type AnyWorkerAgentTool, TOOL_NAME_PATTERN } from '@switchyard/core';
import { agentToolMap, resolveToolParameters, toolKey } from '@switchyard/core/internal';

type Tools = readonly AnyWorkerAgentTool[];

/** Tools that are not defined worker tools: no `execute`, no `describeActivity`, a bad mode, no description. */
export function definitionProblems(tools: Tools): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    if (typeof tool.execute !== 'function') problems.push(`tool '${tool.name}': execute is not a function`);
    if (typeof tool.describeActivity !== 'function')
      problems.push(`tool '${tool.name}': no describeActivity`);
    if (tool.executionMode !== 'parallel' && tool.executionMode !== 'sequential') {
      problems.push(`tool '${tool.name}': executionMode ${String(tool.executionMode)}`);
    }
    if (typeof tool.description !== 'string' || tool.description.trim() === '') {
      problems.push(`tool '${tool.name}': empty description`);
    }
  }
  return problems;
}

/** Names and namespaces that are not valid tool names, and keys two tools share. */
export function nameProblems(tools: Tools): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      problems.push(`tool name ${JSON.stringify(tool.name)} does not match ${TOOL_NAME_PATTERN}`);
    }
    if (tool.namespace !== undefined && !TOOL_NAME_PATTERN.test(tool.namespace)) {
      problems.push(
        `namespace ${JSON.stringify(tool.namespace)} of '${tool.name}' does not match ${TOOL_NAME_PATTERN}`,
      );
    }
  }
  try {
    agentToolMap(tools);
  } catch (error) {
    problems.push((error as Error).message);
  }
  return problems;
}

/** Tools whose parameters cannot be resolved, or whose root is not an object. */
export function schemaProblems(tools: Tools): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    try {
      const parameters = resolveToolParameters(tool);
      if (parameters.parameters.type !== 'object') {
        problems.push(`tool '${toolKey(tool)}': parameters root is not an object`);
      }
    } catch (error) {
      problems.push(`tool '${toolKey(tool)}': ${(error as Error).message}`);
    }
  }
  return problems;
}

/**
 * Tools sent non-strict without a reason in `nonStrict` (external `jsonSchema` tools need none), and
 * entries of `nonStrict` that name a strict tool or no tool.
 */
export function strictnessProblems(tools: Tools, nonStrict: Record<string, string>): string[] {
  const problems: string[] = [];
  const keys = new Set<string>();
  for (const tool of tools) {
    const key = toolKey(tool);
    keys.add(key);
    const parameters = resolveToolParameters(tool);
    if (parameters.strict && nonStrict[key] !== undefined) {
      problems.push(`nonStrict names '${key}', which is sent strict: drop the entry`);
    }
    if (parameters.strict || parameters.external || nonStrict[key] !== undefined) continue;
    problems.push(
      `tool '${key}' is sent non-strict (${parameters.fallbackReason ?? 'strict: false'}): fix the schema, or state why in nonStrict: { '${key}': '...' }`,
    );
  }
  for (const key of Object.keys(nonStrict)) {
    if (!keys.has(key)) problems.push(`nonStrict names '${key}', which the category does not create`);
  }
  return problems;
}
