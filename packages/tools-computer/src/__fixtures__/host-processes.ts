import { readdirSync, readFileSync } from 'node:fs';

/** Host processes (other than this one) whose command line contains `token`; zombies have none. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(token)) found.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A number unique to one test, for `sleep` arguments the host's process list can be searched for. */
export function uniqueSleepToken(): string {
  return `${100 + Math.floor(Math.random() * 800)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}
