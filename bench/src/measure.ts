/** Benchmark helpers: interleaved timing of several contenders, robust statistics, aligned report lines. */
import os from 'node:os';

/** Timings of one contender. */
export interface Timings {
  /** The contender's name. */
  name: string;
  /** Wall-clock milliseconds per run, in run order. */
  runs: number[];
  /** CPU milliseconds (user + system, this process) per run: steadier than wall time on a busy machine. */
  cpu: number[];
  /**
   * Milliseconds from the run's start to each named point it reached (when marked), in run order:
   * for example `firstRequest`, its first model request reaching the server.
   */
  marks: Record<string, number[]>;
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/**
 * The order of contenders in each round: a Williams design, so that across `count` rounds (two
 * squares when `count` is odd) every contender comes right after every other one equally often and
 * sits in every position equally often. A plain rotation keeps neighbours fixed, so one contender
 * would always run right after the same other one and pay for its leftover garbage collection.
 */
export function balancedOrders(count: number): number[][] {
  const sequence: number[] = [];
  for (let step = 0, low = 0, high = count - 1; sequence.length < count; step += 1) {
    sequence.push(step % 2 === 0 ? low++ : high--);
  }
  const orders = Array.from({ length: count }, (_, row) => sequence.map((value) => (value + row) % count));
  return count % 2 === 0 ? orders : [...orders, ...orders.map((order) => [...order].reverse())];
}

/**
 * Times several contenders against each other. Runs are interleaved in balanced orders
 * (`balancedOrders`), so drift in machine load (a shared 2-core box) and the garbage one contender
 * leaves behind hit every contender alike. The heap is not collected between runs: collecting is
 * part of what a turn pays, and a forced collection outside the timing would hide some of it.
 */
export async function interleave(
  contenders: ReadonlyArray<{ name: string; run: () => Promise<unknown> }>,
  options: {
    rounds: number;
    warmup: number;
    /** Named points a run reached (`performance.now()`, undefined when not reached), reset before each run. */
    marks?: { reset(): void; at(): Record<string, number | undefined> };
  },
): Promise<Timings[]> {
  const timings: Timings[] = contenders.map((contender) => ({
    name: contender.name,
    runs: [],
    cpu: [],
    marks: {},
  }));
  const orders = balancedOrders(contenders.length);
  for (let round = -options.warmup; round < options.rounds; round += 1) {
    const order = orders[(round + options.warmup) % orders.length] ?? [];
    for (const index of order) {
      const contender = contenders[index];
      if (contender === undefined) continue;
      options.marks?.reset();
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await contender.run();
      const elapsed = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      const marks = options.marks?.at() ?? {};
      if (round >= 0) {
        timings[index]?.runs.push(elapsed);
        timings[index]?.cpu.push((cpu.user + cpu.system) / 1000);
        for (const [mark, at] of Object.entries(marks)) {
          const timing = timings[index];
          if (at === undefined || timing === undefined) continue;
          timing.marks[mark] ??= [];
          timing.marks[mark].push(at - start);
        }
      }
    }
  }
  return timings;
}

/**
 * The ratio of two contenders' per-round times, as the median of per-round ratios: each round's
 * pair ran back to back under the same load, so their ratio is steadier than a ratio of medians.
 * A mark pairs by round only when both contenders reached it in every round (NaN otherwise).
 */
export function pairedRatio(
  subject: Timings,
  baseline: Timings,
  measure: 'runs' | 'cpu' | { mark: string } = 'runs',
): number {
  const times = (timings: Timings) =>
    typeof measure === 'string' ? timings[measure] : (timings.marks[measure.mark] ?? []);
  const mine = times(subject);
  const theirs = times(baseline);
  if (mine.length !== subject.runs.length || theirs.length !== baseline.runs.length) return Number.NaN;
  return median(mine.map((time, index) => time / (theirs[index] ?? Number.NaN)));
}

/** Formats milliseconds for a report line. */
export function ms(value: number): string {
  return value >= 1 ? `${value.toFixed(2)} ms` : `${(value * 1000).toFixed(1)} µs`;
}

/** Formats bytes for a report line. */
export function bytes(value: number): string {
  return value >= 10_000 ? `${(value / 1024).toFixed(1)} KiB` : `${value} B`;
}

/** Prints a section heading. */
export function heading(title: string): void {
  process.stdout.write(`\n${title}\n`);
}

/** Prints one report line: label, figure and an optional comparison. */
export function report(label: string, figure: string, comparison?: string): void {
  process.stdout.write(
    `  ${label.padEnd(56)} ${figure.padStart(12)}${comparison === undefined ? '' : `   ${comparison}`}\n`,
  );
}

/**
 * Where and when a suite ran, as its section of RESULTS.md states it: the date (now), Node's
 * version, the cores, and the 1-minute load average when the suite began (`loadBefore`) and now.
 */
export function machineNow(loadBefore: number): {
  date: string;
  node: string;
  cores: number;
  load: [before: number, after: number];
} {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cores: os.cpus().length,
    load: [loadBefore, os.loadavg()[0] ?? Number.NaN],
  };
}
