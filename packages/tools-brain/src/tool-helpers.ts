import type { AgentToolResult } from '@switchyard/core';

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
