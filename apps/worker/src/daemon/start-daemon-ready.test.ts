import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonTestBed } from './__fixtures__/daemon-test-bed';
import { requestJson } from './__fixtures__/http-client';

describe('startDaemon: what must be in place before it says it listens (beforeReady)', () => {
  let bed: DaemonTestBed;

  beforeAll(async () => {
    bed = await DaemonTestBed.open({ script: () => ({ text: 'Done.' }) });
  }, 120_000);

  afterAll(async () => {
    await bed?.close();
  }, 120_000);

  it('runs once the API answers, and the daemon logs that it listens only after it', async () => {
    const log: string[] = [];
    const seen: Array<{ url: string; health: number; logged: boolean }> = [];
    const daemon = await bed.startDaemon({
      agents: ['ada'],
      port: 0,
      scheduler: false,
      log: (line) => log.push(line),
      beforeReady: async (url) => {
        const health = await requestJson(`${url}/healthz`);
        seen.push({ url, health: health.status, logged: log.some((line) => line.includes('listening on')) });
      },
    });
    expect(seen).toEqual([{ url: daemon.url, health: 200, logged: false }]);
    expect(log).toContain(`switchyard serve: listening on ${daemon.url} for ada`);
  });

  it('stops the daemon again and fails its start when it rejects, never saying it listens', async () => {
    const log: string[] = [];
    let listened: string | undefined;
    const started = bed.startDaemon({
      agents: ['ada'],
      port: 0,
      scheduler: false,
      log: (line) => log.push(line),
      beforeReady: async (url) => {
        listened = url;
        throw new Error('ENOENT: the data directory is gone');
      },
    });
    await expect(started).rejects.toThrow('ENOENT: the data directory is gone');
    expect(listened).toBeDefined();
    // The listener was closed: nothing answers on its port any more.
    await expect(fetch(`${String(listened)}/healthz`)).rejects.toThrow();
    expect(log.some((line) => line.includes('listening on'))).toBe(false);
  });
});
