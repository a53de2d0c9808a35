import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Runs a full garbage collection every `everyMs` until the returned function is called: what a
 * busy process does often, here on purpose, so that anything only weakly held (a combined
 * `AbortSignal.timeout`) is collected if it can be. Works without `--expose-gc` on the command line.
 */
export function collectGarbageEvery(everyMs: number): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const timer = setInterval(gc, everyMs);
  return () => clearInterval(timer);
}
