import type { AgentToolResult, AgentUsage } from '@switchyard/core';

/** `12 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1_000)} s`;
}

const integer = new Intl.NumberFormat('en-US');

/** `1,234 tokens (1,000 in, 234 out)`. */
export function formatUsage(usage: AgentUsage): string {
  return `${integer.format(usage.totalTokens)} tokens (${integer.format(usage.inputTokens)} in, ${integer.format(usage.outputTokens)} out)`;
}

/** A number with thousands separators. */
export function formatInteger(value: number): string {
  return integer.format(value);
}

/** The first line of a result's text, at most `max` characters: for a failed call's line. */
export function firstLine(content: AgentToolResult['content'], max = 160): string {
  const text =
    typeof content === 'string'
      ? content
      : content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(' ');
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
