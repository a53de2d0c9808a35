import type { AgentEvent } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { eventToJsonLine } from './event-json';

describe('events as JSON lines', () => {
  it('escapes every control character a terminal acts on, C1 and DEL included, and parses back to the event', () => {
    const event: AgentEvent = {
      type: 'text-delta',
      iteration: 1,
      delta: 'a\u001b]52;c;eA==\u0007b\u009b2Jc\u007fd',
    };
    const line = eventToJsonLine(event);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line).toContain('\\u009b2J');
    expect(JSON.parse(line)).toEqual(event);
  });

  it('writes a failed turn’s error as its name and message', () => {
    const line = eventToJsonLine({
      type: 'turn-end',
      status: 'failed',
      iterations: 1,
      usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 },
      error: new TypeError('boom'),
    });
    expect(JSON.parse(line).error).toEqual({ name: 'TypeError', message: 'boom' });
  });
});
