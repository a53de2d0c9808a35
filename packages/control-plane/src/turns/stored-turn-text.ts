import { toStorableJson } from '../values/check-stored-value';

/** Cuts `text` to at most `maxBytes` of UTF-8, on a character boundary, saying so at the end. */
export function capText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const note = '\n[truncated: over the stored size limit]';
  const cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes - Buffer.byteLength(note)));
  // A cut inside a multi-byte character decodes to U+FFFD; drop that partial character.
  return `${cut.toString('utf8').replace(/\uFFFD$/, '')}${note}`;
}

/**
 * The event log as stored JSON text, at most `maxBytes`: when the whole log is over, events are left
 * out of the middle (the start and the end of a turn say the most) and counted.
 */
export function fitEvents(events: readonly unknown[], maxBytes: number): { json: string; dropped: number } {
  const parts = events.map((event) => toStorableJson(event) ?? 'null');
  const sizes = parts.map((part) => Buffer.byteLength(part, 'utf8') + 1);
  const total = sizes.reduce((sum, size) => sum + size, 1);
  if (total <= maxBytes) return { json: `[${parts.join(',')}]`, dropped: 0 };
  const budget = Math.floor((maxBytes - 2) / 2);
  let head = 0;
  for (let used = 0; head < parts.length && used + (sizes[head] ?? 0) <= budget; head += 1)
    used += sizes[head] ?? 0;
  let tail = parts.length;
  for (let used = 0; tail > head && used + (sizes[tail - 1] ?? 0) <= budget; tail -= 1)
    used += sizes[tail - 1] ?? 0;
  const kept = [...parts.slice(0, head), ...parts.slice(tail)];
  return { json: `[${kept.join(',')}]`, dropped: parts.length - kept.length };
}
