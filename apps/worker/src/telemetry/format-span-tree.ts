import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

function durationMs(span: ReadableSpan): number {
  return span.duration[0] * 1000 + span.duration[1] / 1e6;
}

function formatDuration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

function startOf(span: ReadableSpan): number {
  return span.startTime[0] * 1e9 + span.startTime[1];
}

/** What a line says after the name and duration: the attributes an operator looks for first. */
function details(span: ReadableSpan): string {
  const a = span.attributes;
  const parts: string[] = [];
  const status = a['switchyard.turn.status'] ?? a['switchyard.tool.outcome'];
  if (status !== undefined) parts.push(String(status));
  if (a['gen_ai.response.id'] !== undefined) parts.push(String(a['gen_ai.response.id']));
  if (a['gen_ai.usage.input_tokens'] !== undefined) {
    parts.push(`${a['gen_ai.usage.input_tokens']} in / ${a['gen_ai.usage.output_tokens'] ?? 0} out tokens`);
  }
  const repairs = a['switchyard.tool.repairs'];
  if (Array.isArray(repairs) && repairs.length > 0) parts.push(`repaired: ${repairs.join(', ')}`);
  if (a['switchyard.tool.refusal'] !== undefined) parts.push(`refused: ${a['switchyard.tool.refusal']}`);
  if (a['switchyard.tool.approval.wait_ms'] !== undefined) {
    parts.push(`approval ${formatDuration(Number(a['switchyard.tool.approval.wait_ms']))}`);
  }
  return parts.length === 0 ? '' : `  ${parts.join('  ')}`;
}

/**
 * The spans of one turn as an indented tree, children in start order, each line the span's name,
 * its duration and what it ended with:
 *
 * ```
 * invoke_agent main  1.24 s  completed  320 in / 37 out tokens
 * ├─ chat gpt-5.4-mini  612 ms  resp_1  120 in / 30 out tokens
 * ├─ execute_tool read_file  3.1 ms  completed
 * └─ chat gpt-5.4-mini  598 ms  resp_2  200 in / 7 out tokens
 * ```
 *
 * Spans whose parent is not among them are roots.
 */
export function formatSpanTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    const list = children.get(key) ?? [];
    list.push(span);
    children.set(key, list);
  }
  for (const list of children.values()) list.sort((a, b) => startOf(a) - startOf(b));
  const lines: string[] = [];
  const walk = (span: ReadableSpan, prefix: string, branch: string) => {
    lines.push(`${prefix}${branch}${span.name}  ${formatDuration(durationMs(span))}${details(span)}`);
    const below = children.get(span.spanContext().spanId) ?? [];
    const nextPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    below.forEach((child, index) => {
      walk(child, nextPrefix, index === below.length - 1 ? '└─ ' : '├─ ');
    });
  };
  for (const root of children.get(undefined) ?? []) walk(root, '', '');
  return `${lines.join('\n')}\n`;
}
