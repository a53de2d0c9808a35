import { describe, expect, it } from 'vitest';
import type { TurnsInFlightResult, TurnsInFlightRow } from '../suites/turns-in-flight';
import {
  allCompleted,
  renderTurnsInFlightSection,
  turnsInFlightTargetLines,
} from './turns-in-flight-section';

const row = (overrides: Partial<TurnsInFlightRow> = {}): TurnsInFlightRow => ({
  backend: 'postgres',
  turns: 2000,
  statuses: { '202': 2000 },
  errors: {},
  lastAnswerMs: 4_000,
  recorded: 2000,
  completed: 2000,
  turnMs: { p50: 7_200, p99: 9_000 },
  fromPostMs: { p50: 8_000, p99: 11_000 },
  wallMs: 12_000,
  apiHealth: { p50Ms: 20, p99Ms: 240, maxMs: 400, samples: 200 },
  healthPort: { p50Ms: 5, p99Ms: 60, maxMs: 90, samples: 200 },
  mostRunning: 2000,
  idleRss: 120 * 2 ** 20,
  peakRss: 600 * 2 ** 20,
  rssPerTurn: 250 * 1024,
  cpuPerTurnMs: { process: 12, thread: 9, postgres: 3 },
  benchCpuPerTurnMs: 4.5,
  coresBusy: 0.974,
  loopDelay: { samples: 100, p50Ms: 1, p99Ms: 50, maxMs: 90 },
  statementsPerTurn: 3.7,
  problems: [],
  ...overrides,
});

const result = (rows: TurnsInFlightRow[]): TurnsInFlightResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [2, 3],
  requestsPerTurn: 6,
  modelLatencyMs: 1000,
  rows,
  floors: [],
  skipped: [],
});

describe('the turns-in-flight section', () => {
  it('counts a level complete only when every POST got 202 and every turn completed', () => {
    expect(allCompleted(row())).toBe(true);
    expect(allCompleted(row({ statuses: { '202': 1999 }, errors: { ECONNRESET: 1 } }))).toBe(false);
    expect(allCompleted(row({ completed: 1999 }))).toBe(false);
    expect(allCompleted(row({ problems: ['1 turn(s) ended failed'] }))).toBe(false);
  });

  it('judges 2,000 in flight against the median ratio of its backend, /healthz p99 and peak RSS', () => {
    const [met] = turnsInFlightTargetLines(result([row()]));
    expect(met).toContain("median turn 1.20x the model's 6.00 s (target <= 1.25x): met");
    expect(met).toContain("/healthz p99 on the API's port 240 ms (target <= 250 ms): met");
    expect(met).toContain('peak RSS 600 MB (target <= 1024 MB): met');
    const [missed] = turnsInFlightTargetLines(
      result([
        row({
          turnMs: { p50: 9_000, p99: 9_500 },
          apiHealth: { p50Ms: 20, p99Ms: 900, maxMs: 1000, samples: 9 },
        }),
      ]),
    );
    expect(missed).toContain('median turn 1.50x');
    expect(missed).toContain('missed by 0.25x');
    expect(missed).toContain('900 ms (target <= 250 ms): missed');
    // PGlite's own target is 1.5x.
    const [pglite] = turnsInFlightTargetLines(
      result([row({ backend: 'pglite', turnMs: { p50: 9_000, p99: 9_500 } })]),
    );
    expect(pglite).toContain('(target <= 1.5x): met');
  });

  it('judges 5,000 on PostgreSQL on completion and 2 GB, and renders a row per level between its markers', () => {
    const big = row({
      turns: 5000,
      statuses: { '202': 5000 },
      recorded: 5000,
      completed: 5000,
      peakRss: 2.5 * 2 ** 30,
    });
    expect(turnsInFlightTargetLines(result([big]))).toEqual([
      '- PostgreSQL, 5,000 in flight: all completed, peak RSS 2560 MB (target <= 2048 MB): missed',
    ]);
    const section = renderTurnsInFlightSection(result([row(), big]));
    expect(section.startsWith('<!-- bench:turns-in-flight -->\n## Turns in flight')).toBe(true);
    expect(section.endsWith('<!-- /bench:turns-in-flight -->')).toBe(true);
    expect(section).toContain('| postgres | 2000 | 2000 x 202 | 2000 | 7.20 s / 9.00 s | 1.20x |');
    expect(section).toContain('| postgres | 5000 | 5000 x 202 | 5000 |');
  });

  it('reads each 2,000 level beside the bare loop of the same level, when there is one', () => {
    const withFloor = {
      ...result([row()]),
      floors: [
        {
          turns: 2000,
          completed: 2000,
          turnMs: { p50: 6_600, p99: 7_000 },
          cpuPerTurnMs: 5,
          benchCpuPerTurnMs: 4,
          coresBusy: 0.9,
        },
      ],
    };
    const [line] = turnsInFlightTargetLines(withFloor);
    expect(line).toContain(
      "a bare openai loop's median at the same level is 1.10x the model's; the daemon's is 1.09x the bare loop's",
    );
    expect(renderTurnsInFlightSection(withFloor)).toContain(
      '| floor: bare openai loop | 2000 | - | 2000 | 6.60 s / 7.00 s | 1.10x | - | - | - | - | - | - | - | 5.0 / - / - ms | 4.0 ms | 90 % | - |',
    );
    expect(turnsInFlightTargetLines(result([row()]))[0]).not.toContain('bare openai loop');
  });

  it('says where the CPU of each 2,000 level went: the cores busy, each process a turn, and their sum over all cores', () => {
    const [line] = turnsInFlightTargetLines(result([row()]));
    expect(line).toContain(
      "the machine's 2 cores were 97 % busy from the burst to the last end; per completed turn the daemon's process used 12.0 ms of CPU, PostgreSQL 3.0 ms and the benchmark's process (the fake model's server) 4.5 ms: 2000 turns x 19.5 ms is 19.50 s of all 2 cores",
    );
    // PGlite has no server of its own: its share is in the daemon's process.
    const [pglite] = turnsInFlightTargetLines(
      result([row({ backend: 'pglite', cpuPerTurnMs: { process: 14, thread: 9, postgres: Number.NaN } })]),
    );
    expect(pglite).toContain("the daemon's process used 14.0 ms of CPU and the benchmark");
    expect(pglite).toContain('2000 turns x 18.5 ms is 18.50 s of all 2 cores');
    expect(renderTurnsInFlightSection(result([row()]))).toContain(
      '| 12.0 / 9.0 / 3.0 ms | 4.5 ms | 97 % | 3.7 |',
    );
  });
});
