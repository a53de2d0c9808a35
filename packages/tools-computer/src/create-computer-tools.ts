import type { AnyWorkerAgentTool } from '@switchyard/core';

/** What `createComputerTools` needs from the turn. */
// biome-ignore lint/complexity/noBannedTypes: options arrive with this category's issue
export type ComputerToolsContext = {};

/**
 * Creates the computer tools (commands and files confined to the agent home).
 *
 * Contract: returns the category's tools for one turn, in order. Until the category lands it
 * returns no tools.
 *
 * @example
 * const tools = [...createComputerTools({})];
 */
export function createComputerTools(_context: ComputerToolsContext): AnyWorkerAgentTool[] {
  return [];
}
