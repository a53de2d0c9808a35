/** Small benchmark helpers: run a function many times, keep robust statistics, print one line each. */

/** Statistics of one measured function. */
export interface Sample {
  /** Median milliseconds per run. */
  median: number;
  /** 90th percentile milliseconds per run. */
  p90: number;
  /** 99th percentile milliseconds per run. */
  p99: number;
  /** Runs measured. */
  runs: number;
}

/** The value at `fraction` of a sorted list. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Times `run` `runs` times after `warmup` unmeasured runs (default a tenth of `runs`). */
export async function measure(
  run: () => unknown,
  options: { runs: number; warmup?: number },
): Promise<Sample> {
  for (let index = 0; index < (options.warmup ?? Math.ceil(options.runs / 10)); index += 1) await run();
  const times: number[] = [];
  for (let index = 0; index < options.runs; index += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    median: percentile(times, 0.5),
    p90: percentile(times, 0.9),
    p99: percentile(times, 0.99),
    runs: options.runs,
  };
}

/** Formats milliseconds for a report line. */
export function ms(value: number): string {
  return value >= 1 ? `${value.toFixed(2)} ms` : `${(value * 1000).toFixed(1)} µs`;
}

/** Prints one report line: label, figure and an optional ratio. */
export function report(label: string, figure: string, ratio?: string): void {
  process.stdout.write(
    `${label.padEnd(58)} ${figure.padStart(14)}${ratio === undefined ? '' : `   ${ratio}`}\n`,
  );
}
