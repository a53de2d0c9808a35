import type { AgentEvent } from '@switchyard/core';

/** One event as a JSON line (`--json`): errors become `{ name, message }`, since `Error` serializes to `{}`. */
export function eventToJsonLine(event: AgentEvent): string {
  return `${JSON.stringify(event, (_key, value: unknown) =>
    value instanceof Error ? { name: value.name, message: value.message } : value,
  )}\n`;
}
