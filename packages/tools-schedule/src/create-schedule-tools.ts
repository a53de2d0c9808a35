import type { AnyWorkerAgentTool } from '@switchyard/core';

/** What `createScheduleTools` needs from the turn. */
// biome-ignore lint/complexity/noBannedTypes: options arrive with this category's issue
export type ScheduleToolsContext = {};

/**
 * Creates the schedule tools over a ScheduleService.
 *
 * Contract: returns the category's tools for one turn, in order. Until the category lands it
 * returns no tools.
 *
 * @example
 * const tools = [...createScheduleTools({})];
 */
export function createScheduleTools(_context: ScheduleToolsContext): AnyWorkerAgentTool[] {
  return [];
}
