import { useEffect, useState } from 'preact/hooks';

/** The time now, ticking every second while `ticking` (for running durations). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [ticking]);
  return ticking ? now : Date.now();
}
