import { createInterface } from 'node:readline';
import type { BeforeToolCall } from '@switchyard/core';
import type { ProgressOutput } from './turn-progress';
import { visibleControls } from './visible-controls';

/** Options of `createTerminalConfirm`. */
export interface TerminalConfirmOptions {
  /** Where answers are read, a line each: the terminal's stdin, or a pipe. */
  input: NodeJS.ReadableStream;
  /** Where the question is written. */
  output: ProgressOutput;
  /** Called before the question with the call's item index and its label (clear the spinners). */
  onAsk?: (itemIndex: number, activity: string) => void;
  /** Called after the answer (redraw the spinners). */
  onAnswered?: () => void;
}

/** A `beforeToolCall` that asks before destructive calls, and `close()` to release stdin. */
export interface TerminalConfirm {
  /** The hook for `runAgentLoop`. */
  beforeToolCall: BeforeToolCall;
  /** Stops reading the input (so the process can exit). */
  close(): void;
}

/**
 * `--confirm-destructive`: before each destructive call (`isDestructive`), shows its activity
 * label and asks `[y/N]`, reading one line of `input`. `y` or `yes` runs it; anything else, or the
 * input ending, refuses it, and the refusal reaches the model as the call's output. Questions are
 * asked one at a time even when calls run in parallel. Other calls run without a question.
 */
export function createTerminalConfirm(options: TerminalConfirmOptions): TerminalConfirm {
  const reader = createInterface({
    input: options.input,
    terminal: false,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  const lines: string[] = [];
  const waiters: Array<(line: string | undefined) => void> = [];
  let ended = false;
  reader.on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  reader.on('close', () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter(undefined);
  });
  const nextLine = (): Promise<string | undefined> => {
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => waiters.push(resolve));
  };
  const echo = (options.input as { isTTY?: boolean }).isTTY !== true;
  let queue: Promise<unknown> = Promise.resolve();

  const beforeToolCall: BeforeToolCall = (call, tool) => {
    if (tool.isDestructive !== true) return { allow: true };
    const asked = queue.then(async () => {
      let label: string;
      try {
        label = tool.describeActivity(call.params as never);
      } catch {
        label = call.namespace === undefined ? call.name : `${call.namespace}.${call.name}`;
      }
      options.onAsk?.(call.itemIndex, label);
      // The label is built from the model's arguments: its control characters must not act on the
      // terminal the operator answers at (a cleared line could hide what is being allowed).
      options.output.write(`? Allow destructive call: ${visibleControls(label)} [y/N] `);
      const answer = await nextLine();
      // A piped answer is not echoed by a terminal: echo it so the transcript reads as a dialogue.
      options.output.write(echo ? `${answer ?? ''}\n` : '');
      options.onAnswered?.();
      if (answer !== undefined && /^\s*y(es)?\s*$/i.test(answer)) return { allow: true } as const;
      return {
        allow: false,
        reason:
          answer === undefined
            ? 'the operator was asked to confirm this destructive call and gave no answer (input closed); it was not run'
            : 'the operator refused this destructive call at the terminal; it was not run',
      } as const;
    });
    queue = asked;
    return asked;
  };
  return { beforeToolCall, close: () => reader.close() };
}
