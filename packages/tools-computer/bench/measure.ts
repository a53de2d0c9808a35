/** Small benchmark helpers (the same style as core's): robust statistics and one report line each. */

export interface Sample {
  /** Median milliseconds per run. */
  median: number;
  /** 90th percentile milliseconds per run. */
  p90: number;
  /** Runs measured. */
  runs: number;
}

/** Times `run` `runs` times after `warmup` unmeasured runs. */
export async function measure(
  run: () => unknown,
  options: { runs: number; warmup?: number },
): Promise<Sample> {
  for (let index = 0; index < (options.warmup ?? 2); index += 1) await run();
  const times: number[] = [];
  for (let index = 0; index < options.runs; index += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (fraction: number) =>
    times[Math.min(times.length - 1, Math.floor(times.length * fraction))] ?? Number.NaN;
  return { median: at(0.5), p90: at(0.9), runs: options.runs };
}

/** Formats milliseconds. */
export function ms(value: number): string {
  return value >= 1 ? `${value.toFixed(2)} ms` : `${(value * 1000).toFixed(1)} µs`;
}

/** Prints one report line: label, figure and an optional ratio. */
export function report(label: string, figure: string, ratio?: string): void {
  process.stdout.write(
    `${label.padEnd(58)} ${figure.padStart(14)}${ratio === undefined ? '' : `   ${ratio}`}\n`,
  );
}
