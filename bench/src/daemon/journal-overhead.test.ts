import { describe, expect, it } from 'vitest';
import { type JournalSide, journalOffDatabase, journalOverheadRow, runJournalPair } from './journal-overhead';

/** A daemon level's figures as the comparison reads them. */
const side = (turnsPerSecond: number, threadMs: number, problems: string[] = []): JournalSide => ({
  turnsPerSecond,
  latency: { p50: 1000 / turnsPerSecond, p99: 0, addedP50: 0, addedP99: 0 },
  cpu: {
    daemonMs: threadMs * 2,
    daemonThreadMs: threadMs,
    daemonThreadRunning: 0.7,
    daemonThreadWaiting: 0.2,
    postgresMs: 1.5,
  },
  problems,
});

describe("the journal's comparison", () => {
  it('runs the journaling daemon first in even runs and the other first in odd ones', async () => {
    const order: string[] = [];
    const level = (name: string, turnsPerSecond: number) => async () => {
      order.push(name);
      return side(turnsPerSecond, 5);
    };
    const pairs = [];
    for (let run = 0; run < 4; run += 1) {
      pairs.push(await runJournalPair(run, level(`on ${run}`, 90 + run), level(`off ${run}`, 100)));
    }
    expect(order).toEqual(['on 0', 'off 0', 'off 1', 'on 1', 'on 2', 'off 2', 'off 3', 'on 3']);
    // Each side's figures stay with their side whichever ran first.
    expect(pairs.map((pair) => [pair.on.turnsPerSecond, pair.off.turnsPerSecond])).toEqual([
      [90, 100],
      [91, 100],
      [92, 100],
      [93, 100],
    ]);
  });

  it("shows the run with the median on / off ratio, every run's ratio in the order they ran", () => {
    const row = journalOverheadRow(200, [
      { on: side(80, 6), off: side(100, 5) },
      { on: side(95, 6.5), off: side(100, 5.5) },
      { on: side(90, 7), off: side(100, 5.2, ['1 of 200 turns not completed']) },
    ]);
    expect(row.turns).toBe(200);
    expect(row.runRatios.map((value) => value.toFixed(2))).toEqual(['0.80', '0.95', '0.90']);
    expect(row.ratio).toBeCloseTo(0.9, 10);
    expect([row.onTurnsPerSecond, row.offTurnsPerSecond]).toEqual([90, 100]);
    expect(row.onCpu).toEqual({ threadMs: 7, processMs: 14, postgresMs: 1.5 });
    expect(row.offCpu).toEqual({ threadMs: 5.2, processMs: 10.4, postgresMs: 1.5 });
    expect([row.onTurnP50Ms, row.offTurnP50Ms]).toEqual([1000 / 90, 10]);
    expect(row.problems).toEqual(['journal off: 1 of 200 turns not completed']);
  });

  it('takes the lower middle run of an even count, so a tie never flatters the journal', () => {
    const row = journalOverheadRow(50, [
      { on: side(99, 5), off: side(100, 5) },
      { on: side(85, 5), off: side(100, 5) },
    ]);
    expect(row.ratio).toBeCloseTo(0.85, 10);
    expect(row.runRatios).toHaveLength(2);
  });

  it('gives the daemon without journals a PGlite folder of its own, as every daemon has', () => {
    expect(journalOffDatabase({ kind: 'pglite' })).toEqual({ kind: 'pglite' });
  });
});
