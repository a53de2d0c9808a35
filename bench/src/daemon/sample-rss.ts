/** Samples a process's RSS every `intervalMs`; `stop()` returns the highest sample. */
export function sampleRss(read: () => number | undefined, intervalMs = 100): { stop(): number } {
  let peak = read() ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, read() ?? 0);
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, read() ?? 0);
    },
  };
}
