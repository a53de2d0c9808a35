import { describe, expect, it } from 'vitest';
import type { JournalOverheadRow } from '../daemon/journal-overhead';
import type { BusyDaemonBackend, BusyDaemonResult } from '../suites/busy-daemon';
import { renderBusyDaemonSection } from './busy-daemon-section';
import { journalOverheadLines } from './journal-overhead-section';

const journalRow = (turns: number, on: number, off: number, runRatios: number[]): JournalOverheadRow => ({
  turns,
  onTurnsPerSecond: on,
  offTurnsPerSecond: off,
  ratio: on / off,
  runRatios,
  onCpu: { threadMs: 7.25, processMs: 11.5, postgresMs: 1.75 },
  offCpu: { threadMs: 5.5, processMs: 9.25, postgresMs: 0.75 },
  onTurnP50Ms: 1300,
  offTurnP50Ms: 1100,
  problems: [],
});

const backend = (name: 'pglite' | 'postgres', journal: JournalOverheadRow[]): BusyDaemonBackend => ({
  backend: name,
  idleRssBytes: 300 * 2 ** 20,
  startMs: 2000,
  oneTurnMs: 110,
  rows: [],
  journal,
});

const result = (backends: BusyDaemonBackend[]): BusyDaemonResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [3, 4],
  calls: 5,
  repeats: 3,
  modelMs: 10,
  backends,
});

describe("the busy-daemon section's journal comparison", () => {
  it('renders a row per backend and level: turns/s on and off, the ratio, each run and the CPU of each', () => {
    const text = renderBusyDaemonSection(
      result([
        backend('pglite', [journalRow(50, 95, 100, [0.97, 0.95, 0.9])]),
        backend('postgres', [journalRow(500, 80, 100, [0.8, 0.83, 0.71])]),
      ]),
    );
    expect(text).toContain('### The turn journal (issue 41)');
    expect(text).toContain('`serve.journal: false`');
    expect(text).toContain('(3 runs a level)');
    expect(text).toContain(
      '| pglite | 50 | 95.0/s | 100.0/s | 0.95x | 0.97x, 0.95x, 0.90x | 1300 ms / 1100 ms | 7.3 ms / 5.5 ms | 11.5 ms / 9.3 ms | 1.8 ms / 0.8 ms |',
    );
    expect(text).toContain('| postgres | 500 | 80.0/s | 100.0/s | 0.80x | 0.80x, 0.83x, 0.71x |');
    // The journal's part is inside the section's markers.
    expect(text.indexOf('### The turn journal')).toBeLessThan(text.indexOf('<!-- /bench:busy-daemon -->'));
  });

  it("judges each level against issue 41's 0.90x and says where a miss went", () => {
    const lines = journalOverheadLines(
      result([
        backend('pglite', [journalRow(50, 95, 100, [0.95]), journalRow(500, 89.6, 100, [0.896])]),
        backend('postgres', [journalRow(500, 80, 100, [0.8])]),
      ]),
    ).join('\n');
    expect(lines).toContain('- pglite, 50 turns: journal on / off turns/s met (0.95x >= 0.90x)\n');
    // 0.896x prints as 0.90x and is judged as printed.
    expect(lines).toContain('- pglite, 500 turns: journal on / off turns/s met (0.90x >= 0.90x)\n');
    expect(lines).toContain(
      "- postgres, 500 turns: journal on / off turns/s missed by 0.10x (0.80x, target >= 0.90x): with the journal the daemon's thread spent 1.8 ms more CPU a turn (7.3 ms / 5.5 ms), its whole process 2.3 ms, the PostgreSQL server 1.0 ms\n",
    );
  });

  it('lists the problems of the daemon without journals', () => {
    const lines = journalOverheadLines(
      result([
        backend('pglite', [
          { ...journalRow(200, 90, 100, [0.9]), problems: ['journal off: 2 of 200 turns not completed'] },
        ]),
      ]),
    );
    expect(lines).toContain('- pglite, 200 turns: journal off: 2 of 200 turns not completed');
  });

  it('adds nothing when no backend ran', () => {
    const skipped = { ...backend('postgres', []), skipped: 'no PostgreSQL server binaries (initdb) found' };
    expect(journalOverheadLines(result([skipped]))).toEqual([]);
    expect(renderBusyDaemonSection(result([skipped]))).not.toContain('The turn journal');
  });
});
