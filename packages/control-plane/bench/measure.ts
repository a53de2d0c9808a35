/** Small benchmark helpers (the same style as packages/core/bench). */

/** The value at `fraction` of a sorted list. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
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
