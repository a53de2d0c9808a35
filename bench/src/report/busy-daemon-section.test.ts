import { describe, expect, it } from 'vitest';
import type { BusyDaemonResult, BusyDaemonRow } from '../suites/busy-daemon';
import { renderBusyDaemonSection } from './busy-daemon-section';
import { updateSections } from './update-sections';

const row = (turns: number, turnsPerSecond: number, floor: number, healthP50Ms: number): BusyDaemonRow => ({
  turns,
  completed: turns,
  turnsPerSecond,
  floorTurnsPerSecond: floor,
  floorRatio: turnsPerSecond / floor,
  runRatios: [turnsPerSecond / floor],
  latency: { p50: 1000, p99: 2000, addedP50: 990, addedP99: 1990 },
  floorLatency: { p50: 500, p99: 700, addedP50: 490, addedP99: 690 },
  rssPerTurnBytes: 200 * 1024,
  peakRssBytes: 900 * 2 ** 20,
  mostRunning: turns,
  healthP50Ms,
  healthP99Ms: healthP50Ms * 3,
  healthMaxMs: healthP50Ms * 4,
  healthSamples: 40,
  healthPort: { p50Ms: 3, p99Ms: 41, maxMs: 97, samples: 60 },
  loopDelay: { samples: 90, p50Ms: 12, p99Ms: 180, maxMs: 240 },
  cpu: {
    daemonMs: 9.25,
    daemonThreadMs: 8.04,
    daemonThreadRunning: 0.76,
    daemonThreadWaiting: 0.18,
    floorMs: 6.5,
    floorThreadMs: 5.16,
    floorThreadRunning: 0.86,
    floorThreadWaiting: 0.09,
    postgresMs: 1.3,
  },
  problems: [],
});

const result = (postgres: BusyDaemonResult['backends'][number]): BusyDaemonResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [3.5, 4.25],
  calls: 5,
  repeats: 1,
  modelMs: 10,
  backends: [
    {
      backend: 'pglite',
      idleRssBytes: 840 * 2 ** 20,
      startMs: 9000,
      oneTurnMs: 120,
      rows: [row(50, 59, 100, 20), row(500, 55, 150, 180)],
      journal: [],
    },
    postgres,
  ],
});

/** A PostgreSQL backend that ran the given levels. */
const postgresRan = (rows: BusyDaemonRow[]): BusyDaemonResult['backends'][number] => ({
  backend: 'postgres',
  idleRssBytes: 110 * 2 ** 20,
  startMs: 1500,
  oneTurnMs: 170,
  rows,
  journal: [],
});

describe('the busy-daemon section', () => {
  it('renders one row per backend and level, with the load and the model time', () => {
    const text = renderBusyDaemonSection(result(postgresRan([row(500, 120, 150, 40)])));
    expect(text.startsWith('<!-- bench:busy-daemon -->\n## Busy daemon')).toBe(true);
    expect(text).toContain('load average 3.5 before and 4.3 after');
    expect(text).toContain('no tool work: 10.00 ms');
    expect(text).toContain('| pglite | 840 MB | 9000 ms | 120 ms |');
    expect(text).toContain(
      '| pglite | 500 | 500 | 55.0/s | 150.0/s | 0.37x | 0.37x | 1000 ms / 2000 ms | 990 ms / 1990 ms | 490 ms / 690 ms | 200 KB (900 MB) | 500 | 180 ms / 540 ms / 720 ms (40) |',
    );
    expect(text).toContain('| postgres | 500 | 500 | 120.0/s | 150.0/s | 0.80x |');
  });

  it('says which targets are met and by how much the others are missed', () => {
    const text = renderBusyDaemonSection(result(postgresRan([row(500, 120, 150, 40)])));
    expect(text).toContain(
      '- pglite, 50 turns: turns/s vs the floor missed by 0.01x (0.59x, target >= 0.60x)',
    );
    expect(text).toContain(
      '- pglite, 500 turns: turns/s vs the floor missed by 0.23x (0.37x, target >= 0.60x)',
    );
    expect(text).toContain('- pglite, 500 turns: `/healthz` p50 missed by 80 ms (180 ms, target < 100 ms)');
    expect(text).toContain('- pglite: idle RSS missed by 590 MB (840 MB, target < 250 MB)');
    expect(text).toContain('- postgres, 500 turns: turns/s vs the floor met (0.80x >= 0.75x)');
    expect(text).toContain('- postgres, 500 turns: `/healthz` p50 met (40 ms < 100 ms)');
  });

  it('shows where the time went: event-loop delay and CPU a turn of the daemon, the floor and PostgreSQL', () => {
    const text = renderBusyDaemonSection(result(postgresRan([row(500, 120, 150, 40)])));
    expect(text).toContain(
      '| postgres | 500 | 12 ms / 180 ms / 240 ms | 3 ms / 41 ms / 97 ms (60) | 9.3 ms (8.0 ms) | 76 % / 18 % | 6.5 ms (5.2 ms) | 86 % / 9 % | 1.3 ms |',
    );
    expect(text).toContain('preloaded into the daemon with `node --import`');
  });

  it('says why a missed floor ratio is missed, from the figures of its own level', () => {
    const text = renderBusyDaemonSection(
      result(postgresRan([row(500, 90, 150, 40), row(200, 140, 150, 40)])),
    );
    expect(text).toContain(
      "- postgres, 500 turns: turns/s vs the floor missed by 0.15x (0.60x, target >= 0.75x): the daemon's thread spent 8.0 ms of CPU a turn against the floor thread's 5.2 ms, and ran 76 % of the level against the floor's 86 %; it waited for a core 18 % of it (the floor 9 %): the 2 cores are shared with its own other threads (1.2 ms a turn), the PostgreSQL server (1.3 ms a turn) and the fake model\n",
    );
    // PGlite names no PostgreSQL server; a met ratio gets no explanation.
    expect(text).toContain(
      "- pglite, 500 turns: turns/s vs the floor missed by 0.23x (0.37x, target >= 0.60x): the daemon's thread spent 8.0 ms of CPU a turn against the floor thread's 5.2 ms, and ran 76 % of the level against the floor's 86 %; it waited for a core 18 % of it (the floor 9 %): the 2 cores are shared with its own other threads (1.2 ms a turn) and the fake model\n",
    );
    expect(text).toContain('- postgres, 200 turns: turns/s vs the floor met (0.93x >= 0.75x)\n');
  });

  it('shows every run of a repeated level beside the median one, and says how they ran', () => {
    const repeated = result(postgresRan([{ ...row(500, 120, 150, 40), runRatios: [0.74, 0.8, 0.83] }]));
    const text = renderBusyDaemonSection({ ...repeated, repeats: 3 });
    expect(text).toContain('| postgres | 500 | 500 | 120.0/s | 150.0/s | 0.80x | 0.74x, 0.80x, 0.83x |');
    expect(text).toContain('each level runs 3 times, floor and daemon in alternating order');
    expect(renderBusyDaemonSection(repeated)).not.toContain('alternating order');
  });

  it('judges a ratio as the table prints it', () => {
    const text = renderBusyDaemonSection(
      result(
        // 0.7467x and 0.7433x: printed 0.75x and 0.74x.
        postgresRan([row(200, 112, 150, 40), row(500, 111.5, 150, 40)]),
      ),
    );
    expect(text).toContain('| postgres | 200 | 200 | 112.0/s | 150.0/s | 0.75x |');
    expect(text).toContain('- postgres, 200 turns: turns/s vs the floor met (0.75x >= 0.75x)');
    expect(text).toContain(
      '- postgres, 500 turns: turns/s vs the floor missed by 0.01x (0.74x, target >= 0.75x)',
    );
  });

  it('names a skipped backend with its reason and renders no row for it', () => {
    const text = renderBusyDaemonSection(
      result({
        backend: 'postgres',
        skipped: 'no PostgreSQL server binaries (initdb) found',
        idleRssBytes: Number.NaN,
        startMs: Number.NaN,
        oneTurnMs: Number.NaN,
        rows: [],
        journal: [],
      }),
    );
    expect(text).toContain('- **postgres skipped**: no PostgreSQL server binaries (initdb) found');
    expect(text).not.toContain('| postgres |');
  });

  it('replaces its own marked section of RESULTS.md', () => {
    const first = updateSections('# Benchmark results\n', {
      'busy-daemon': renderBusyDaemonSection(
        result({
          backend: 'postgres',
          skipped: 'none here',
          idleRssBytes: Number.NaN,
          startMs: Number.NaN,
          oneTurnMs: Number.NaN,
          rows: [],
          journal: [],
        }),
      ),
    });
    const second = updateSections(first, {
      'busy-daemon': renderBusyDaemonSection(result(postgresRan([row(500, 120, 150, 40)]))),
    });
    expect(second.match(/## Busy daemon/g)).toHaveLength(1);
    expect(second).not.toContain('none here');
    expect(second).toContain('| postgres | 500 |');
  });
});
