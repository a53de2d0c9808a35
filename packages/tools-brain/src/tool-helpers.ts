import type { AgentToolResult } from '@switchyard/core';
import type { BrainPage } from './brain-service';

/** A thrown service error as a result the model can act on. */
export function failure(action: string, error: unknown): AgentToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: `Could not ${action}: ${message}`, isError: true, details: { error: message } };
}

/** At most `max` characters of a title for an activity label. */
export function shortTitle(title: string, max = 60): string {
  const flat = title.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The `s` of a plural, when `count` is not 1. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * One of the agent's pages from a Brain service call, or the result to return instead: a thrown
 * error is the `failure` to `action`, and no page (`null`) is the `isError` result `missing`.
 */
export async function pageOrResult(
  action: string,
  load: () => Promise<BrainPage | null>,
  missing: string,
): Promise<{ page: BrainPage } | { result: AgentToolResult }> {
  let page: BrainPage | null;
  try {
    page = await load();
  } catch (error) {
    return { result: failure(action, error) };
  }
  return page === null ? { result: { content: missing, isError: true } } : { page };
}

/** What a page call says when the agent has no page `pageId`. */
export function noPage(pageId: string): string {
  return `You have no page ${pageId}. Find page ids with recall.`;
}
