/**
 * How far `serve` lets V8 grow a heap past what it held after a full collection: a factor of
 * 1 + this / 100. By default V8 picks the factor from the collector's speed, up to 4x, and a heap
 * that grew during a burst gives its pages back only slowly. With 2,000 turns in flight on PGlite
 * the daemon's peak RSS was 1,029 and 1,068 MB by default, 883 and 938 MB at 100 (the target is
 * 1 GiB); the busy daemon at 500 kept its pace (0.84x to 0.86x of the bare loop on PostgreSQL and
 * 0.76x to 0.77x on PGlite, against 0.75x to 0.79x and 0.72x to 0.84x by default), and CPU per turn
 * rose by 0.5 ms on PostgreSQL and not at all on PGlite. At 50 the peak fell by 200 MB more, but the
 * busy daemon on PostgreSQL fell to 0.70x to 0.74x (`bench/README.md`).
 */
export const SERVE_HEAP_GROWING_PERCENT = 100;

/**
 * The V8 flags a command sets as it starts, before any database opens (V8 reads `--liftoff-only`
 * when it compiles a WebAssembly module, `--heap-growing-percent` at each full collection; flags
 * are the process's, so they hold in its threads too).
 *
 * - Every command but the daemon lives a second or a few: V8's optimising compiler for WebAssembly
 *   (the embedded database) spends more CPU on background compiles than the optimised code saves in
 *   that time. Without it a read-only view takes 1.0 s instead of 1.45 s (1.15 s of CPU instead of
 *   2.1 s). `serve` runs for hours and keeps it.
 * - `serve` grows its heaps by at most `SERVE_HEAP_GROWING_PERCENT`, unless it was started with
 *   its own `--heap-growing-percent` (`node --heap-growing-percent=50 .../cli.js serve`).
 */
export function startUpV8Flags(command: string | undefined, execArgv: readonly string[]): string[] {
  if (command !== 'serve') return ['--liftoff-only'];
  const chosen = execArgv.some((argument) => /^--heap[-_]growing[-_]percent(=|$)/.test(argument));
  return chosen ? [] : [`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`];
}
