import { TOOL_NAME_PATTERN } from '@switchyard/core';

/**
 * The worker tool name for an MCP tool name. MCP allows names the Responses API refuses (`.`, `/`,
 * up to 128 characters), so other characters become `_`, the name is cut to 64 characters, and a
 * name already `taken` on the same server gets a `_2`, `_3`, ... suffix. Valid names pass unchanged.
 */
export function toWorkerToolName(mcpName: string, taken: ReadonlySet<string>): string {
  let base = mcpName;
  if (!TOOL_NAME_PATTERN.test(base)) {
    base = mcpName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'tool';
  }
  let name = base;
  for (let suffix = 2; taken.has(name); suffix += 1) {
    const tail = `_${suffix}`;
    name = `${base.slice(0, 64 - tail.length)}${tail}`;
  }
  return name;
}

/** An MCP tool name as messages and logs show it: a name past 128 characters is cut, with `…`. */
export function shownToolName(mcpName: string): string {
  return mcpName.length > 128 ? `${mcpName.slice(0, 128)}…` : mcpName;
}
