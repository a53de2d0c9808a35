import os from 'node:os';
import { measureEventLoop } from '@switchyard/testkit';
import { heading, median, ms, report } from '../measure';
import type { StallCase, StallCaseSet } from '../stall/stall-case';

/** The stall a tool call may cause at most: the worst event-loop delay while it runs. */
export const STALL_TARGET_MS = 250;

/** What one case did over its runs. */
export interface ToolStallRow {
  /** The category the case came from. */
  category: string;
  /** The tool called. */
  tool: string;
  /** The case. */
  name: string;
  /** Median wall time of the call, ms. */
  callMs: number;
  /** Slowest call, ms. */
  maxCallMs: number;
  /** Worst event-loop delay over all runs (`monitorEventLoopDelay`, 10 ms resolution), ms. */
  maxDelayMs: number;
  /** Median over the runs of each run's worst delay, ms: what a typical call did. */
  medianDelayMs: number;
  /** Worst gap between two runs of a 5 ms interval timer, ms. */
  maxGapMs: number;
  /**
   * The most run time of the main thread between two runs of that timer, ms (Linux): the part of a
   * gap the process was working, not waiting for a core. Undefined where it cannot be read.
   */
  maxBusyMs: number | undefined;
  /** The last run's result, summarised (`ok` / `error` and its first words), or what it threw. */
  outcome: string;
}

/** What the stall benchmark found. */
export interface ToolStallResult {
  /** Measured runs per case. */
  runs: number;
  /** The corpus each category ran on. */
  corpora: Array<{ category: string; corpus: string }>;
  rows: ToolStallRow[];
  /** When it ran and on which Node. */
  date: string;
  node: string;
  /** The machine's 1-minute load average before and after (a shared machine: delays include waiting for a core). */
  load: [before: number, after: number];
  /** Cores. */
  cores: number;
}

/**
 * Not a tool: a 50 ms timer, measured like the cases, first and last. What it shows is the noise of
 * the machine at the time (on a shared 2-core box, waiting for a core shows up as loop delay).
 */
const CONTROL: StallCase = {
  tool: '(control)',
  name: 'no tool call, a 50 ms timer',
  run: () => new Promise((resolve) => setTimeout(() => resolve({ content: 'waited' }), 50)),
};

function summarise(result: unknown): string {
  if (typeof result !== 'object' || result === null || !('content' in result)) return 'no result';
  const { content, isError } = result as { content: unknown; isError?: boolean };
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  const first = (text.split('\n')[0] ?? '').replace(/\s+/g, ' ');
  const words = first.length > 70 ? `${first.slice(0, 67)}...` : first;
  return `${isError === true ? 'error' : 'ok'}: ${words} (${text.length.toLocaleString('en-US')} chars)`;
}

/** Runs one call while watching the event loop (testkit's `measureEventLoop`, as the stall tests do). */
async function measureCall(stallCase: StallCase): Promise<{
  callMs: number;
  delayMs: number;
  gapMs: number;
  busyMs: number | undefined;
  outcome: string;
}> {
  await stallCase.setup?.();
  // Let the setup's own I/O settle so it is not charged to the call.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const measured = await measureEventLoop(async () => {
    try {
      return summarise(await stallCase.run());
    } catch (error) {
      return `threw: ${error instanceof Error ? error.message : String(error)}`;
    }
  });
  return {
    callMs: measured.elapsedMs,
    delayMs: measured.maxDelayMs,
    gapMs: measured.maxGapMs,
    busyMs: measured.maxBusyMs,
    outcome: measured.value,
  };
}

/**
 * The stall benchmark: for each case of each category, the worst event-loop delay while the call
 * runs, beside the call's own time. One worker process runs many agents on one event loop, so a
 * call may take long, but must not hold the loop: the target is no delay above 250 ms.
 */
export async function toolStall(
  sets: readonly StallCaseSet[],
  options: { runs: number },
): Promise<ToolStallResult> {
  const rows: ToolStallRow[] = [];
  const load: [number, number] = [os.loadavg()[0] ?? 0, 0];
  heading(`Tool stall: worst event-loop delay per call (${options.runs} runs per case)`);
  const measureCase = async (category: string, stallCase: StallCase) => {
    const runs = [];
    for (let run = 0; run < options.runs; run += 1) runs.push(await measureCall(stallCase));
    const row: ToolStallRow = {
      category,
      tool: stallCase.tool,
      name: stallCase.name,
      callMs: median(runs.map((run) => run.callMs)),
      maxCallMs: Math.max(...runs.map((run) => run.callMs)),
      maxDelayMs: Math.max(...runs.map((run) => run.delayMs)),
      medianDelayMs: median(runs.map((run) => run.delayMs)),
      maxGapMs: Math.max(...runs.map((run) => run.gapMs)),
      maxBusyMs: runs.some((run) => run.busyMs === undefined)
        ? undefined
        : Math.max(...runs.map((run) => run.busyMs ?? 0)),
      outcome: runs[runs.length - 1]?.outcome ?? '',
    };
    rows.push(row);
    report(
      `${row.tool}: ${row.name}`.slice(0, 56),
      ms(row.maxDelayMs),
      `median ${ms(row.medianDelayMs)}, call ${ms(row.callMs)}, gap ${ms(row.maxGapMs)}, busy ${row.maxBusyMs === undefined ? '-' : ms(row.maxBusyMs)}${row.maxDelayMs > STALL_TARGET_MS ? '  OVER TARGET' : ''}`,
    );
  };
  await measureCase('control', CONTROL);
  for (const set of sets) {
    for (const stallCase of set.cases) await measureCase(set.category, stallCase);
  }
  await measureCase('control', CONTROL);
  load[1] = os.loadavg()[0] ?? 0;
  return {
    runs: options.runs,
    corpora: sets.map((set) => ({ category: set.category, corpus: set.corpus })),
    rows,
    date: new Date().toISOString(),
    node: process.version,
    load,
    cores: os.cpus().length,
  };
}
