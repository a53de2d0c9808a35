import type { AnyWorkerAgentTool } from '@switchyard/core';

/** What `createWebTools` needs from the turn. */
// biome-ignore lint/complexity/noBannedTypes: options arrive with this category's issue
export type WebToolsContext = {};

/**
 * Creates the web tools (web_search and web_fetch) for the providers bound in the context.
 *
 * Contract: returns the category's tools for one turn, in order. Until the category lands it
 * returns no tools.
 *
 * @example
 * const tools = [...createWebTools({})];
 */
export function createWebTools(_context: WebToolsContext): AnyWorkerAgentTool[] {
  return [];
}
