import { readFileSync } from 'node:fs';

/**
 * The most files (sockets included) this process may have open: the soft `RLIMIT_NOFILE`, which
 * Node raises to the hard limit at start-up, read from `/proc/self/limits`. Undefined where that
 * file does not exist (not Linux) or says `unlimited`.
 */
export function readOpenFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined;
  }
  const line = text.split('\n').find((entry) => entry.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  const limit = Number(soft);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}
