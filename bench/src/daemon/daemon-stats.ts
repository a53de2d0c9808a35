/** The arithmetic of the daemon benchmarks: percentiles, rates, ratios and memory per turn. */

/**
 * The `p`-th percentile (0 to 100) of `values` by the nearest-rank method: the smallest value at
 * least `p` percent of the values are less than or equal to. NaN for an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? Number.NaN;
}

/** Completed units per second over `elapsedMs`; NaN when no time passed. */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1000) / elapsedMs : Number.NaN;
}

/** `subject / baseline`, NaN unless both are finite and the baseline is positive. */
export function ratio(subject: number, baseline: number): number {
  return Number.isFinite(subject) && Number.isFinite(baseline) && baseline > 0
    ? subject / baseline
    : Number.NaN;
}

/**
 * The resident memory one running turn costs: the highest RSS sampled while the turns ran, less
 * the RSS just before they started, shared by the most turns that ran at once. NaN with no turn.
 */
export function rssPerTurn(peakBytes: number, idleBytes: number, mostRunning: number): number {
  return mostRunning > 0 ? Math.max(0, peakBytes - idleBytes) / mostRunning : Number.NaN;
}

/**
 * The most intervals open at once (start inclusive, end exclusive): from turn records, how many
 * turns ran at the same time, however rarely a busy daemon answered `/healthz` meanwhile.
 */
export function mostConcurrent(intervals: ReadonlyArray<readonly [start: number, end: number]>): number {
  const edges: Array<[time: number, change: number]> = [];
  for (const [start, end] of intervals) {
    if (!(end > start)) continue;
    edges.push([start, 1], [end, -1]);
  }
  // An end and a start at the same time do not overlap: ends first.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, change] of edges) {
    open += change;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * The run of a repeated measurement whose ratio (`ratioOf`) is the median (the lower middle one of
 * an even count, so a tie never flatters): the run a report shows, with the others' ratios beside
 * it. Throws for no run.
 */
export function medianRun<T>(runs: readonly T[], ratioOf: (run: T) => number): T {
  const sorted = [...runs].sort((a, b) => ratioOf(a) - ratioOf(b));
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('medianRun: no run');
  return middle;
}

/** The `VmRSS` line of a `/proc/<pid>/status` text, in bytes; undefined without one. */
export function parseVmRss(status: string): number | undefined {
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) * 1024;
}

/** Latency figures of one run: percentiles of the turn times and of what they add to the model's own. */
export interface LatencySummary {
  /** Median turn time, ms. */
  p50: number;
  /** 99th percentile turn time, ms. */
  p99: number;
  /** Median turn time less the model's own time for the script, ms. */
  addedP50: number;
  /** 99th percentile turn time less the model's own time for the script, ms. */
  addedP99: number;
}

/**
 * Turn latencies against `modelMs`, the fake model's own time for the same script (its requests
 * answered back to back with nothing else running): what the runtime added on top of the model.
 */
export function summariseLatency(turnMs: readonly number[], modelMs: number): LatencySummary {
  const p50 = percentile(turnMs, 50);
  const p99 = percentile(turnMs, 99);
  return { p50, p99, addedP50: p50 - modelMs, addedP99: p99 - modelMs };
}

/**
 * How a figure must stand against its target: `at-least` for rates and ratios to a floor, `below`
 * for times and sizes, `at-most` for ratios a cost must stay within (1.05x: 1.05x meets it).
 */
export type TargetKind = 'at-least' | 'below' | 'at-most';

const SIGNS: Record<TargetKind, string> = { 'at-least': '>=', below: '<', 'at-most': '<=' };

/** Whether a measured figure meets a target. */
export function meets(value: number, target: number, kind: TargetKind): boolean {
  if (!Number.isFinite(value)) return false;
  return kind === 'at-least' ? value >= target : kind === 'below' ? value < target : value <= target;
}

/**
 * How a figure stands against its target, for a report: `met (0.81x >= 0.75x)` or
 * `missed by 0.14x (0.61x, target >= 0.75x)`; `format` renders the numbers.
 */
export function verdict(
  value: number,
  target: number,
  kind: TargetKind,
  format: (value: number) => string,
): string {
  const sign = SIGNS[kind];
  if (!Number.isFinite(value)) return `not measured (target ${sign} ${format(target)})`;
  if (meets(value, target, kind)) return `met (${format(value)} ${sign} ${format(target)})`;
  return `missed by ${format(Math.abs(value - target))} (${format(value)}, target ${sign} ${format(target)})`;
}

/** The fields of a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line the benchmarks read. */
export interface ProcStat {
  /** The parent's process id. */
  ppid: number;
  /** User plus system CPU time, in clock ticks (`getconf CLK_TCK` a second). */
  cpuTicks: number;
}

/**
 * Parses a `/proc/<pid>/stat` line: the command name (field 2) is in parentheses and may hold
 * spaces or parentheses itself, so the fields are counted from the last `)`. Undefined when the
 * line is not one.
 */
export function parseProcStat(line: string): ProcStat | undefined {
  const close = line.lastIndexOf(')');
  if (close === -1) return undefined;
  // After the name: state (3), ppid (4), ..., utime (14), stime (15).
  const fields = line.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (![ppid, utime, stime].every(Number.isInteger)) return undefined;
  return { ppid, cpuTicks: utime + stime };
}

/** CPU time spent per unit of work, ms: NaN without a finite time or a unit. */
export function msPer(cpuMs: number, units: number): number {
  return Number.isFinite(cpuMs) && units > 0 ? cpuMs / units : Number.NaN;
}
