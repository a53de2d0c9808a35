import { describe, expect, it } from 'vitest';
import type { GrowingFleetResult, GrowingFleetRow } from '../suites/growing-fleet';
import { renderGrowingFleetSection } from './growing-fleet-section';

const row = (
  processes: number,
  tasksPerSecond: number,
  coresBusy = { serve: 0.9, postgres: 0.4, bench: 0.3 },
): GrowingFleetRow => ({
  processes,
  completed: 400,
  tasksPerSecond,
  seconds: 400 / tasksPerSecond,
  queriesPerTask: 42.25,
  pgbossPerTask: 20,
  switchyardPerTask: 15,
  otherPerTask: 7.25,
  coresBusy,
  problems: [],
});

const fleet = (rows: GrowingFleetRow[], scaling: number): GrowingFleetResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [2, 3],
  tasks: 400,
  workflows: 8,
  pollSeconds: 2,
  counting: '`pg_stat_statements`',
  rows,
  scaling,
});

describe('the growing-fleet section', () => {
  it('renders a row per fleet size with statements per task split by owner', () => {
    const text = renderGrowingFleetSection(fleet([row(1, 10), row(2, 18), row(4, 25)], 2.5));
    expect(text.startsWith('<!-- bench:growing-fleet -->\n## Growing fleet')).toBe(true);
    expect(text).toContain('as 8 workflows of at most 50 tasks');
    expect(text).toContain('`serve.pollSeconds` 2 (default 2)');
    expect(text).toContain(
      '| 1 | 400 | 40.0 | 10.0/s | 42.3 | 20.0 | 15.0 | 7.3 | 1.60 (0.90 / 0.40 / 0.30) |',
    );
    expect(text).toContain('| 4 | 400 | 16.0 | 25.0/s |');
  });

  it('states the scaling target as met or missed by how much', () => {
    expect(renderGrowingFleetSection(fleet([row(1, 10), row(4, 25)], 2.5))).toContain(
      'Scaling, 4 processes over 1: missed by 0.50x (2.50x, target >= 3.00x): the machine has 2 cores, and 1 process already kept 1.60 of them busy (the `serve` process 0.90, PostgreSQL 0.40, the fake model and the benchmark 0.30); 3 times its work needs about 4.8 cores, and 4 processes kept 1.60 busy.',
    );
    expect(renderGrowingFleetSection(fleet([row(1, 10), row(4, 31)], 3.1))).toContain(
      'Scaling, 4 processes over 1: met (3.10x >= 3.00x).',
    );
  });

  it('says why it was skipped and renders no table then', () => {
    const text = renderGrowingFleetSection({
      ...fleet([], Number.NaN),
      skipped: 'no PostgreSQL server binaries',
    });
    expect(text).toContain('**Skipped**: no PostgreSQL server binaries');
    expect(text).not.toContain('| processes |');
  });
});
