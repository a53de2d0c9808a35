import { describe, expect, it } from 'vitest';
import { ControlPlaneConfigError, ControlPlaneInputError, openControlPlane } from './index';

describe('openControlPlane options', () => {
  it('throws naming the field before opening any database', async () => {
    await expect(openControlPlane({ databaseUrl: 'mysql://x', environment: {} })).rejects.toThrow(
      /^databaseUrl: /,
    );
    await expect(openControlPlane({ environment: { DATABASE_URL: 'nope' } })).rejects.toThrow(
      /^DATABASE_URL: /,
    );
    const agent = await openControlPlane({ agentId: 'has space', environment: {} }).catch(
      (error: unknown) => error,
    );
    expect(ControlPlaneInputError.isInstance(agent)).toBe(true);
    expect((agent as ControlPlaneInputError).field).toBe('agentId');
    await expect(
      openControlPlane({ schedules: { maxSchedulesPerAgent: 0 }, environment: {} }),
    ).rejects.toThrow(/^schedules\.maxSchedulesPerAgent: must be a number of at least 1, got 0/);
    await expect(
      openControlPlane({ turnRequests: { pollingIntervalSeconds: 0.1 }, environment: {} }),
    ).rejects.toThrow(/^turnRequests\.pollingIntervalSeconds: must be a number of at least 0\.5/);
    // pg-boss keeps retries, delays and expiry as whole numbers, and refuses an expiry of a day.
    await expect(
      openControlPlane({ workTurns: { retryDelaySeconds: 0.5 }, environment: {} }),
    ).rejects.toThrow(/^workTurns\.retryDelaySeconds: must be a whole number from 0, got 0\.5/);
    await expect(
      openControlPlane({ turnRequests: { expireInSeconds: 86_400 }, environment: {} }),
    ).rejects.toThrow(/^turnRequests\.expireInSeconds: must be a whole number from 1 to 86399, got 86400/);
    await expect(
      openControlPlane({ workTurns: { retryBackoff: 'yes' as unknown as boolean }, environment: {} }),
    ).rejects.toThrow(/^workTurns\.retryBackoff: must be true or false, got yes/);
    // A page's search vector must fit PostgreSQL's 1 MiB tsvector limit.
    await expect(openControlPlane({ brain: { maxPageBytes: 1024 * 1024 }, environment: {} })).rejects.toThrow(
      /^brain\.maxPageBytes: must be a whole number from 1 to 524288, got 1048576/,
    );
  });

  it('throws ControlPlaneConfigError with the full option path in field', async () => {
    const cases: Array<[Parameters<typeof openControlPlane>[0], string]> = [
      [{ databaseUrl: 'mysql://x', environment: {} }, 'databaseUrl'],
      [{ environment: { DATABASE_URL: 'nope' } }, 'DATABASE_URL'],
      [{ schedules: { maxSchedulesPerAgent: 0 }, environment: {} }, 'schedules.maxSchedulesPerAgent'],
      [{ workTurns: { retryDelaySeconds: 0.5 }, environment: {} }, 'workTurns.retryDelaySeconds'],
      [
        { workTurns: { retryBackoff: 'yes' as unknown as boolean }, environment: {} },
        'workTurns.retryBackoff',
      ],
      [{ brain: { maxPageBytes: 0 }, environment: {} }, 'brain.maxPageBytes'],
      [{ brain: { maxPagesPerAgent: 0 }, environment: {} }, 'brain.maxPagesPerAgent'],
      // The quota must hold at least one page of the largest size.
      [{ brain: { maxPageBytes: 8192, maxBytesPerAgent: 4096 }, environment: {} }, 'brain.maxBytesPerAgent'],
      [{ brain: { retentionDays: 0.5 }, environment: {} }, 'brain.retentionDays'],
      [{ brain: { pruneIntervalSeconds: 3_000_000 }, environment: {} }, 'brain.pruneIntervalSeconds'],
      [{ brain: { maxRecallRows: 0 }, environment: {} }, 'brain.maxRecallRows'],
      [{ brain: { recallTimeoutMs: -1 }, environment: {} }, 'brain.recallTimeoutMs'],
      [{ maxConnections: 0, environment: {} }, 'maxConnections'],
      [{ maxConnections: 2.5, environment: {} }, 'maxConnections'],
    ];
    for (const [options, field] of cases) {
      const error = await openControlPlane(options).catch((thrown: unknown) => thrown);
      expect(ControlPlaneConfigError.isInstance(error), field).toBe(true);
      expect((error as ControlPlaneConfigError).field).toBe(field);
    }
  });

  it('rejects when the PostgreSQL server is unreachable', async () => {
    await expect(
      openControlPlane({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', environment: {} }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
