import type { AnyWorkerAgentTool } from '@switchyard/core';

/** What `createWorkflowTools` needs from the turn. */
// biome-ignore lint/complexity/noBannedTypes: options arrive with this category's issue
export type WorkflowToolsContext = {};

/**
 * Creates the workflow tools of an ordinary text turn.
 *
 * Contract: returns the category's tools for one turn, in order. Until the category lands it
 * returns no tools.
 *
 * @example
 * const tools = [...createWorkflowTools({})];
 */
export function createWorkflowTools(_context: WorkflowToolsContext): AnyWorkerAgentTool[] {
  return [];
}
