import type { AgentToolResult, ToolExecutionContext, ToolResultContentPart } from '@switchyard/core';

/** A tool call's context for calling an MCP tool's `execute` directly: never aborted, no progress kept. */
export const CALL_CONTEXT: ToolExecutionContext = {
  signal: new AbortController().signal,
  toolCallId: 'call_1',
  idempotencyKey: 'turn_test:1',
  reportProgress: () => {},
};

/** A result's content as text: its text parts, one a line, and `nonText(part)` for the others. */
export function resultText(
  result: AgentToolResult,
  nonText: (part: ToolResultContentPart) => string = () => '',
): string {
  return typeof result.content === 'string'
    ? result.content
    : result.content.map((part) => (part.type === 'text' ? part.text : nonText(part))).join('\n');
}
