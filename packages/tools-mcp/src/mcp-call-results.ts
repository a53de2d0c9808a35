import type { AgentToolResult } from '@switchyard/core';
import { errorMessage } from './error-message';
import type { McpLimitError } from './errors/mcp-limit-error';
import type { McpToolCallDetails } from './mcp-tool-result';

// The results of a call to an MCP tool that did not get the server's answer: each says what happened
// in words the model can act on, with the `failure` class in `details`.

type CallResult = AgentToolResult<McpToolCallDetails>;

/** The call was cancelled (the turn's signal fired), before or while it ran. */
export function callCancelled(label: string, details: McpToolCallDetails, signal: AbortSignal): CallResult {
  const reason = signal.reason === undefined ? '' : ` (${errorMessage(signal.reason)})`;
  return {
    isError: true,
    content: `The call to ${label} was cancelled${reason}.`,
    details: { ...details, failure: 'cancelled' },
  };
}

/** The server is down and could not (or may no longer) be restarted. */
export function serverUnavailable(details: McpToolCallDetails, downReason: string): CallResult {
  return {
    isError: true,
    content: `MCP server '${details.server}' is unavailable: ${downReason}. Its tools cannot be called in this session.`,
    details: { ...details, failure: 'server-unavailable' },
  };
}

/** The call passed its total limit (`callDeadlineMs`), whatever progress it reported. */
export function callPastDeadline(label: string, details: McpToolCallDetails, deadlineMs: number): CallResult {
  return {
    isError: true,
    content: `The call to ${label} did not finish within MCP server '${details.server}''s callDeadlineMs of ${deadlineMs} ms, whatever progress it reported; it was cancelled.`,
    details: { ...details, failure: 'timeout' },
  };
}

/** The server's answer passed one of the client's limits (the server itself is unaffected). */
export function callOverBudget(label: string, details: McpToolCallDetails, limit: McpLimitError): CallResult {
  return {
    isError: true,
    content: `The call to ${label} failed: ${limit.message}. The server's other tools are unaffected; ask it for less (a narrower query, a page, a smaller size) if the tool allows.`,
    details: { ...details, failure: 'over-budget' },
  };
}

/** The MCP servers were closed while the call ran. */
export function serversClosed(label: string, details: McpToolCallDetails): CallResult {
  return {
    isError: true,
    content: `The call to ${label} did not complete: the MCP servers were closed.`,
    details: { ...details, failure: 'server-unavailable' },
  };
}

/** The server exited (stdio) or became unreachable (HTTP) during the call. */
export function serverLostDuringCall(
  label: string,
  details: McpToolCallDetails,
  kind: 'stdio' | 'http',
  downReason: string,
  stderrNote: string,
): CallResult {
  const what = kind === 'stdio' ? 'exited during the call to' : 'became unreachable during the call to';
  return {
    isError: true,
    content: `MCP server '${details.server}' ${what} ${label} (${downReason}); the call did not complete and may or may not have taken effect.${stderrNote}`,
    details: { ...details, failure: 'server-exited' },
  };
}

/** No result came within `callTimeoutMs` (reset by progress). */
export function callTimedOut(label: string, details: McpToolCallDetails, timeoutMs: number): CallResult {
  return {
    isError: true,
    content: `The call to ${label} timed out after ${timeoutMs} ms without a result.`,
    details: { ...details, failure: 'timeout' },
  };
}

/** Any other failure of the request (a protocol error, an error the server answered with). */
export function callFailed(label: string, details: McpToolCallDetails, error: unknown): CallResult {
  return {
    isError: true,
    content: `Calling ${label} failed: ${errorMessage(error)}`,
    details: { ...details, failure: 'protocol-error' },
  };
}
