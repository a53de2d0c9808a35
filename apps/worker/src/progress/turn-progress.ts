import type { AgentEvent, AgentRunResult } from '@switchyard/core';
import { firstLine, formatDuration, formatUsage } from './format';
import { visibleControls } from './visible-controls';

/** Where progress is written: `process.stdout`, or anything with `write` (and `isTTY`). */
export interface ProgressOutput {
  /** Writes text as it is. */
  write(text: string): unknown;
  /** A terminal: spinners are redrawn in place. Otherwise plain lines are printed. */
  isTTY?: boolean;
  /** Terminal width, to keep a spinner line on one row. */
  columns?: number;
}

/** Options of `TurnProgress`. */
export interface TurnProgressOptions {
  /** Where to write. */
  output: ProgressOutput;
  /** Force terminal (redrawn spinners) or plain output; default `output.isTTY`. */
  interactive?: boolean;
  /** The clock, in ms (default `performance.now`). */
  now?: () => number;
  /** Spinner frame interval (default 80 ms). */
  frameMs?: number;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';
const UP = '\x1b[1A';
/** Appended to the label of a running destructive call. */
export const DESTRUCTIVE_MARK = '[destructive]';

interface Running {
  activity: string;
  startedAt: number;
}

/**
 * Renders a turn's events for a person: each tool call's activity label with a spinner and its
 * elapsed time, replaced by its completed label (`✓`, or `✗` with why); the model's text as it
 * streams; a one-line summary at the end. On a terminal the spinner lines are redrawn in place;
 * elsewhere (a pipe, a file, CI) each call prints a start line and an end line, never a redraw.
 *
 * Contract: everything it prints from the turn (the model's text, activity labels built from its
 * arguments, a failed call's result, an error message) has its control characters made visible
 * (`visibleControls`): the model cannot write an escape sequence to the operator's terminal (a
 * clipboard write, a screen clear, a line overwritten). The only sequences written are its own
 * spinner redraws, on a terminal.
 */
export class TurnProgress {
  readonly #output: ProgressOutput;
  readonly #interactive: boolean;
  readonly #now: () => number;
  readonly #frameMs: number;
  readonly #running = new Map<number, Running>();
  readonly #labels = new Map<number, string>();
  readonly #startedAt: number;
  #waitingSince: number | undefined;
  #drawn = 0;
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #atLineStart = true;
  #paused = false;
  #toolCalls = 0;
  #failedCalls = 0;

  constructor(options: TurnProgressOptions) {
    this.#output = options.output;
    this.#interactive = options.interactive ?? options.output.isTTY === true;
    this.#now = options.now ?? (() => performance.now());
    this.#frameMs = options.frameMs ?? 80;
    this.#startedAt = this.#now();
  }

  /** Tool calls seen so far, and how many of them failed. */
  get counts(): { toolCalls: number; failed: number } {
    return { toolCalls: this.#toolCalls, failed: this.#failedCalls };
  }

  /** Renders one event. */
  handle(event: AgentEvent): void {
    switch (event.type) {
      case 'model-request-start':
        this.#waitingSince = this.#now();
        this.#redraw();
        break;
      case 'text-delta':
        if (this.#waitingSince !== undefined) {
          this.#waitingSince = undefined;
          this.#clear();
        }
        this.#write(event.delta);
        break;
      case 'model-request-end':
        this.#waitingSince = undefined;
        this.#redraw();
        break;
      case 'tool-call-start': {
        // A destructive call (it may change or delete something) is marked while it runs.
        const activity = event.isDestructive ? `${event.activity} ${DESTRUCTIVE_MARK}` : event.activity;
        this.#running.set(event.itemIndex, { activity, startedAt: this.#now() });
        if (!this.#interactive) this.#line(`… ${activity}`);
        this.#redraw();
        break;
      }
      case 'tool-call-end': {
        this.#running.delete(event.itemIndex);
        this.#toolCalls += 1;
        const activity = this.#labels.get(event.itemIndex) ?? event.activity;
        this.#labels.delete(event.itemIndex);
        const took = event.durationMs > 0 ? ` (${formatDuration(event.durationMs)})` : '';
        // The outcome alone says whether the call failed, and it is the word shown (`tool-error`,
        // `timeout`, `denied`, ...): the same vocabulary as `--json`, the API and the spans.
        if (event.outcome !== 'completed') {
          this.#failedCalls += 1;
          // An abandoned call may still be running: worth its own word beside the outcome.
          const outcome = event.abandoned === true ? `${event.outcome}, abandoned` : event.outcome;
          this.#line(`✗ ${activity}${took}: ${outcome}: ${firstLine(event.result.content)}`);
        } else {
          this.#line(`✓ ${event.activity}${took}`);
        }
        this.#redraw();
        break;
      }
      case 'turn-end':
        this.#waitingSince = undefined;
        this.#running.clear();
        this.#stopTimer();
        this.#clear();
        break;
      default:
        break;
    }
  }

  /**
   * Remembers a call's activity label before it starts (a confirmation question shows it), so a
   * call refused before it started is shown by its label rather than its tool name.
   */
  label(itemIndex: number, activity: string): void {
    this.#labels.set(itemIndex, activity);
  }

  /** Prints a line of the worker's own (above the spinners). */
  note(text: string): void {
    this.#line(text);
    this.#redraw();
  }

  /** Clears the spinners and stops redrawing, e.g. while asking a question on the terminal. */
  pause(): void {
    this.#paused = true;
    this.#stopTimer();
    this.#clear();
    if (!this.#atLineStart) this.#write('\n');
  }

  /** Undoes `pause`. */
  resume(): void {
    this.#paused = false;
    this.#redraw();
  }

  /** The one-line summary: status, time, iterations, tool calls, tokens. */
  summary(result: AgentRunResult): string {
    const ok = result.status === 'completed' || result.status === 'ended-by-tool';
    const calls = `${this.#toolCalls} tool call${this.#toolCalls === 1 ? '' : 's'}${this.#failedCalls > 0 ? ` (${this.#failedCalls} failed)` : ''}`;
    const iterations = `${result.iterations} iteration${result.iterations === 1 ? '' : 's'}`;
    const why =
      result.incompleteReason !== undefined
        ? ` (${result.incompleteReason}): the answer was cut off`
        : result.error === undefined || ok
          ? ''
          : `: ${result.error.message}`;
    return `${ok ? '✓' : '✗'} ${result.status}${why} · ${iterations} · ${calls} · ${formatUsage(result.usage)} · ${formatDuration(this.#now() - this.#startedAt)}`;
  }

  /** Prints the summary line (after the text, on its own line). */
  finish(result: AgentRunResult): void {
    this.#stopTimer();
    this.#clear();
    this.#line(this.summary(result));
  }

  #write(text: string): void {
    if (text === '') return;
    this.#output.write(visibleControls(text));
    this.#atLineStart = text.endsWith('\n');
  }

  #line(text: string): void {
    this.#clear();
    if (!this.#atLineStart) this.#write('\n');
    this.#write(`${text}\n`);
  }

  #spinnerLines(): string[] {
    const now = this.#now();
    const frame = FRAMES[this.#frame % FRAMES.length];
    const columns = this.#output.columns;
    // A pseudo-terminal may report 0 columns: then assume a common width.
    const width = columns !== undefined && columns >= 20 ? columns - 1 : 100;
    const lines: string[] = [];
    if (this.#waitingSince !== undefined && this.#atLineStart) {
      lines.push(`${frame} Waiting for the model (${formatDuration(now - this.#waitingSince)})`);
    }
    for (const call of this.#running.values()) {
      lines.push(`${frame} ${call.activity} (${formatDuration(now - call.startedAt)})`);
    }
    return lines.map((line) => {
      const shown = visibleControls(line);
      return shown.length > width ? `${shown.slice(0, width - 1)}…` : shown;
    });
  }

  #clear(): void {
    if (this.#drawn === 0) return;
    let text = CLEAR_LINE;
    for (let index = 1; index < this.#drawn; index += 1) text += UP + CLEAR_LINE;
    this.#output.write(text);
    this.#drawn = 0;
  }

  #redraw(): void {
    if (!this.#interactive || this.#paused) return;
    this.#clear();
    const lines = this.#spinnerLines();
    if (lines.length === 0) {
      this.#stopTimer();
      return;
    }
    // Spinners go on rows of their own, below any text that has not ended its line.
    if (!this.#atLineStart) this.#write('\n');
    this.#output.write(lines.join('\n'));
    this.#drawn = lines.length;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        this.#frame += 1;
        this.#redraw();
      }, this.#frameMs);
      this.#timer.unref?.();
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
