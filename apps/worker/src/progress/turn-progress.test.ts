import type { AgentEvent, AgentRunResult, AgentToolResult } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { TurnProgress } from './turn-progress';

const itemOf = (id: string) => id.charCodeAt(0) - 96;

const usage = {
  inputTokens: 1200,
  cachedInputTokens: 0,
  outputTokens: 34,
  reasoningTokens: 0,
  totalTokens: 1234,
};

/** A call named by `id` (`a`, `b`, ...): its call id, and its item index unless given (`a` is 1). */
function end(
  id: string,
  activity: string,
  durationMs: number,
  result: AgentToolResult,
  itemIndex = itemOf(id),
): AgentEvent {
  return {
    type: 'tool-call-end',
    callId: id,
    itemIndex,
    name: 'tool',
    outcome: result.isError === true ? 'tool-error' : 'completed',
    activity,
    durationMs,
    isError: result.isError === true,
    repairs: [],
    result,
    endsTurn: false,
  };
}

function start(id: string, activity: string, isDestructive = false, itemIndex = itemOf(id)): AgentEvent {
  return {
    type: 'tool-call-start',
    callId: id,
    itemIndex,
    name: 'tool',
    activity,
    params: {},
    repairs: [],
    isReadOnly: !isDestructive,
    isDestructive,
  };
}

/** A turn that failed with `error` after one iteration, nothing said. */
function failedTurn(error: Error): AgentRunResult {
  return { status: 'failed', output: '', items: [], usage, iterations: 1, error };
}

function harness(interactive: boolean) {
  let output = '';
  let clock = 0;
  const progress = new TurnProgress({
    output: {
      write: (text: string) => {
        output += text;
      },
      columns: 80,
    },
    interactive,
    now: () => clock,
    frameMs: 60_000,
  });
  return {
    progress,
    advance: (ms: number) => {
      clock += ms;
    },
    take: () => {
      const taken = output;
      output = '';
      return taken;
    },
  };
}

describe('terminal progress (TTY)', () => {
  it('draws a spinner with elapsed time, then replaces it with the completed label', () => {
    const { progress, advance, take } = harness(true);
    progress.handle({ type: 'model-request-start', iteration: 1, toolCount: 3 });
    expect(take()).toBe('⠋ Waiting for the model (0 ms)');
    progress.handle({ type: 'text-delta', iteration: 1, delta: 'Reading it.' });
    expect(take()).toBe('\r\x1b[2KReading it.');
    progress.handle({
      type: 'model-request-end',
      iteration: 1,
      responseId: 'r',
      usage,
      functionCallCount: 2,
    });
    progress.handle(start('a', 'Reading notes.md'));
    advance(1_500);
    progress.handle(start('b', 'Fetching example.com'));
    // The text's line is ended, then both running calls are drawn on rows of their own.
    expect(take()).toBe(
      '\n⠋ Reading notes.md (0 ms)\r\x1b[2K⠋ Reading notes.md (1.5 s)\n⠋ Fetching example.com (0 ms)',
    );
    advance(250);
    progress.handle(end('a', 'Read 12 lines of notes.md', 1_750, { content: 'x' }));
    expect(take()).toBe(
      '\r\x1b[2K\x1b[1A\r\x1b[2K✓ Read 12 lines of notes.md (1.8 s)\n⠋ Fetching example.com (250 ms)',
    );
    progress.handle(
      end('b', 'Fetching example.com', 300, { content: 'refused: private address\nmore', isError: true }),
    );
    expect(take()).toBe('\r\x1b[2K✗ Fetching example.com (300 ms): tool-error: refused: private address\n');
    progress.handle({ type: 'turn-end', status: 'completed', iterations: 2, usage });
    const result: AgentRunResult = { status: 'completed', output: '', items: [], usage, iterations: 2 };
    advance(1_000);
    progress.finish(result);
    expect(take()).toBe(
      '✓ completed · 2 iterations · 2 tool calls (1 failed) · 1,234 tokens (1,200 in, 34 out) · 2.8 s\n',
    );
  });
});

describe('calls that reuse a call id', () => {
  it('are told apart by their item: the end of one leaves the other running', () => {
    const { progress, take } = harness(true);
    progress.handle(start('a', 'Reading first.md', false, 1));
    progress.handle(start('a', 'Reading second.md', false, 3));
    take();
    progress.handle(end('a', 'Read first.md', 10, { content: 'x' }, 1));
    expect(take()).toBe('\r\x1b[2K\x1b[1A\r\x1b[2K✓ Read first.md (10 ms)\n⠋ Reading second.md (0 ms)');
  });
});

describe('plain progress (not a TTY)', () => {
  it('prints a start line and an end line per call and never redraws', () => {
    const { progress, advance, take } = harness(false);
    progress.handle({ type: 'model-request-start', iteration: 1, toolCount: 3 });
    progress.handle({ type: 'text-delta', iteration: 1, delta: 'Running' });
    progress.handle({ type: 'text-delta', iteration: 1, delta: ' tests.' });
    progress.handle(start('a', 'Running `npm test`'));
    advance(3_200);
    progress.handle(end('a', 'Command exited 1 after 3.2 s', 3_200, { content: 'exit 1', isError: true }));
    progress.handle({ type: 'turn-end', status: 'failed', iterations: 1, usage, error: new Error('boom') });
    progress.finish(failedTurn(new Error('boom')));
    expect(take()).toBe(
      'Running tests.\n… Running `npm test`\n✗ Command exited 1 after 3.2 s (3.2 s): tool-error: exit 1\n' +
        '✗ failed: boom · 1 iteration · 1 tool call (1 failed) · 1,234 tokens (1,200 in, 34 out) · 3.2 s\n',
    );
  });
});

describe('a final answer cut off', () => {
  it('says the turn is incomplete, with the reason, not completed', () => {
    const { progress, take } = harness(false);
    progress.handle({ type: 'text-delta', iteration: 1, delta: 'The essay' });
    progress.handle({
      type: 'turn-end',
      status: 'incomplete',
      iterations: 1,
      usage,
      incompleteReason: 'max_output_tokens',
    });
    progress.finish({
      status: 'incomplete',
      incompleteReason: 'max_output_tokens',
      output: 'The essay',
      items: [],
      usage,
      iterations: 1,
    });
    expect(take()).toMatch(
      /^The essay\n✗ incomplete \(max_output_tokens\): the answer was cut off · 1 iteration · 0 tool calls · /,
    );
  });
});

describe('destructive calls', () => {
  it('are marked on their start line and their spinner, read-only ones are not', () => {
    const plain = harness(false);
    plain.progress.handle(start('a', 'Writing out.txt', true));
    plain.progress.handle(start('b', 'Reading in.txt'));
    expect(plain.take()).toBe('… Writing out.txt [destructive]\n… Reading in.txt\n');

    const terminal = harness(true);
    terminal.progress.handle(start('a', 'Running `rm -r build`', true));
    expect(terminal.take()).toBe('⠋ Running `rm -r build` [destructive] (0 ms)');
  });
});

describe('abandoned calls', () => {
  it('say so beside the outcome: the tool may still be running', () => {
    const { progress, take } = harness(false);
    progress.handle(start('c', 'Fetching slow.example'));
    take();
    const ended = end('c', 'Fetching slow.example', 1_000, { content: 'timed out\nmore', isError: true });
    progress.handle({ ...ended, outcome: 'timeout', abandoned: true } as AgentEvent);
    expect(take()).toBe('✗ Fetching slow.example (1.0 s): timeout, abandoned: timed out\n');
    progress.handle({ ...ended, callId: 'd', outcome: 'timeout' } as AgentEvent);
    expect(take()).toBe('✗ Fetching slow.example (1.0 s): timeout: timed out\n');
  });
});

describe("the model's control characters", () => {
  // An OSC 52 clipboard write, a screen clear and a carriage return that would overwrite the line.
  const hostile = 'Done.\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007\u001b[2J\u001b[H\rAll good';
  const shown = 'Done.␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇␛[2J␛[H␍All good';

  it('are shown, not acted on, in plain output: text, labels, a failed result and an error', () => {
    const { progress, take } = harness(false);
    progress.handle({ type: 'text-delta', iteration: 1, delta: hostile });
    progress.handle(start('a', `Running \`${hostile}\``));
    progress.handle(end('a', 'Command failed', 10, { content: `boom ${hostile}`, isError: true }));
    progress.finish(failedTurn(new Error(hostile)));
    const output = take();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(output).toContain(`${shown}\n… Running \`${shown}\`\n✗ Command failed`);
    expect(output).toContain(`tool-error: boom ${shown}`);
    expect(output).toContain(`✗ failed: ${shown} · `);
  });

  it('are shown in the redrawn spinners too, whose own redraw sequences are the only ones written', () => {
    const { progress, take } = harness(true);
    progress.handle(start('a', `Fetching \u009b2J${hostile}`));
    const output = take();
    expect(output).toContain(`Fetching ␛[2J${shown}`.slice(0, 60));
    // What is left once the spinner's own sequences (clear line, cursor up) are taken out.
    const withoutOwn = output.replaceAll('\r\u001b[2K', '').replaceAll('\u001b[1A', '');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    expect(withoutOwn).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    progress.handle({ type: 'turn-end', status: 'completed', iterations: 1, usage });
  });
});
