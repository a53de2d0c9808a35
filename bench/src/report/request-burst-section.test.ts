import { describe, expect, it } from 'vitest';
import type { RequestBurstResult, RequestBurstRow } from '../suites/request-burst';
import { burstMeetsTarget, renderRequestBurstSection } from './request-burst-section';
import { updateSections } from './update-sections';

const row = (overrides: Partial<RequestBurstRow> = {}): RequestBurstRow => ({
  backend: 'pglite',
  openFileLimit: 20_000,
  maxWaitingWork: 1000,
  requests: 2000,
  statuses: { '202': 1200, '503': 800 },
  shedWithRetryAfter: 800,
  errors: {},
  answerMs: { p50: 5_000, p99: 20_000, last: 21_500 },
  turnsRecorded: 1200,
  turnsCompleted: 1200,
  peakOpenFiles: 2100,
  log: [],
  problems: [],
  ...overrides,
});

const result = (rows: RequestBurstRow[]): RequestBurstResult => ({
  date: '2026-01-01T00:00:00.000Z',
  node: 'v20.20.2',
  cores: 2,
  load: [2, 3],
  somaxconn: 4096,
  calls: 5,
  rows,
  skipped: [],
});

describe('the request-burst section', () => {
  it('judges each backend on the machine’s own limit: every request answered 202 or 503, none reset', () => {
    expect(burstMeetsTarget(row())).toBe(true);
    expect(burstMeetsTarget(row({ statuses: { '202': 1200, '503': 799 }, errors: { ECONNRESET: 1 } }))).toBe(
      false,
    );
    expect(burstMeetsTarget(row({ statuses: { '202': 1200, '503': 799, '500': 1 } }))).toBe(false);
    expect(burstMeetsTarget(row({ statuses: { '202': 1200, '503': 799 }, errors: { deadline: 1 } }))).toBe(
      false,
    );

    const text = renderRequestBurstSection(
      result([
        row(),
        row({ backend: 'postgres', statuses: { '202': 1990, '503': 9 }, errors: { ECONNRESET: 1 } }),
        row({
          backend: 'postgres',
          imposedFileLimit: 1024,
          openFileLimit: 1024,
          maxWaitingWork: 192,
          statuses: { '202': 192, '503': 382 },
          shedWithRetryAfter: 382,
          errors: { ECONNRESET: 1426 },
          log: ['switchyard serve: 576 connections open, ...'],
        }),
      ]),
    );
    expect(text.startsWith('<!-- bench:request-burst -->\n## Request burst')).toBe(true);
    expect(text.endsWith('<!-- /bench:request-burst -->')).toBe(true);
    expect(text).toContain(
      '| pglite | 20000 | 1000 | 1200 | 800 (800) | 0 | 0 | 5.0 s / 20.0 s / 21.5 s | 1200 / 1200 | 2100 |',
    );
    expect(text).toContain('| postgres | 1024 (imposed) | 192 | 192 | 382 (382) | 0 | 1426 |');
    expect(text).toContain('- embedded PGlite: met (2000 answers of 2000, each 202 or 503, 0 reset)');
    expect(text).toContain(
      '- PostgreSQL: missed: 1999 answers of 2000, other statuses 0, without an answer 1',
    );
    expect(text).toContain('    switchyard serve: 576 connections open, ...');
    expect(text).toContain('Under an imposed open-file limit smaller than the burst (1024), not judged');
  });

  it('replaces only its own section of RESULTS.md', () => {
    const before =
      '# Benchmark results\n\n- Date: x\n\n<!-- bench:growing-fleet -->\nfleet\n<!-- /bench:growing-fleet -->\n';
    const after = updateSections(before, { 'request-burst': renderRequestBurstSection(result([row()])) });
    expect(after).toContain('<!-- bench:growing-fleet -->\nfleet\n<!-- /bench:growing-fleet -->');
    expect(after).toContain('<!-- bench:request-burst -->\n## Request burst');
  });
});
