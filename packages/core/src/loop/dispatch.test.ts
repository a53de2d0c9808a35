import { describe, expect, it } from 'vitest';
import { dispatchToolCalls } from './dispatch';

interface Call {
  id: string;
  parallel: boolean;
}

/** Runs calls whose completion the test controls, logging starts and ends. */
function harness(calls: Call[], maxConcurrent?: number) {
  const log: string[] = [];
  const finishers = new Map<string, () => void>();
  let stop = false;
  const done = dispatchToolCalls(calls, {
    isParallel: (call) => call.parallel,
    run: (call) => {
      log.push(`start ${call.id}`);
      return new Promise<string>((resolve) => {
        finishers.set(call.id, () => {
          log.push(`end ${call.id}`);
          resolve(`output ${call.id}`);
        });
      });
    },
    shouldStop: () => stop,
    skip: (call) => `skipped ${call.id}`,
    ...(maxConcurrent === undefined ? {} : { maxConcurrent }),
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    log,
    done,
    async finish(id: string) {
      finishers.get(id)?.();
      await settle();
    },
    settle,
    stop() {
      stop = true;
    },
  };
}

const p = (id: string): Call => ({ id, parallel: true });
const s = (id: string): Call => ({ id, parallel: false });

describe('batching', () => {
  it('starts a run of parallel calls together and waits for all of them before a sequential call', async () => {
    const run = harness([p('a'), p('b'), s('c'), p('d')]);
    await run.settle();
    expect(run.log).toEqual(['start a', 'start b']);
    await run.finish('b');
    expect(run.log).toEqual(['start a', 'start b', 'end b']);
    await run.finish('a');
    expect(run.log.slice(-2)).toEqual(['end a', 'start c']);
    await run.finish('c');
    expect(run.log.slice(-2)).toEqual(['end c', 'start d']);
    await run.finish('d');
    expect(await run.done).toEqual(['output a', 'output b', 'output c', 'output d']);
  });

  it('records outputs in call order whatever order calls finish in', async () => {
    const run = harness([p('a'), p('b'), p('c')]);
    await run.settle();
    await run.finish('c');
    await run.finish('a');
    await run.finish('b');
    expect(run.log).toEqual(['start a', 'start b', 'start c', 'end c', 'end a', 'end b']);
    expect(await run.done).toEqual(['output a', 'output b', 'output c']);
  });

  it('runs at most maxConcurrent calls of a parallel run at once, starting the rest in order', async () => {
    const run = harness([p('a'), p('b'), p('c'), p('d'), s('e')], 2);
    await run.settle();
    expect(run.log).toEqual(['start a', 'start b']);
    await run.finish('b');
    expect(run.log).toEqual(['start a', 'start b', 'end b', 'start c']);
    await run.finish('c');
    expect(run.log.slice(-2)).toEqual(['end c', 'start d']);
    await run.finish('d');
    await run.finish('a');
    expect(run.log.slice(-2)).toEqual(['end a', 'start e']);
    await run.finish('e');
    expect(await run.done).toEqual(['output a', 'output b', 'output c', 'output d', 'output e']);
  });

  it('gives every call not yet run the skip output once told to stop', async () => {
    const run = harness([p('a'), s('b'), p('c'), p('d')]);
    await run.settle();
    run.stop();
    await run.finish('a');
    expect(await run.done).toEqual(['output a', 'skipped b', 'skipped c', 'skipped d']);
    expect(run.log).toEqual(['start a', 'end a']);
  });

  it('returns an empty list for no calls', async () => {
    expect(await harness([]).done).toEqual([]);
  });
});
