import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runChaos } from '@switchyard/chaos-driver';
import { openControlPlane } from '@switchyard/control-plane';
import { postgresTitle, postgresUrl, type TestDatabase } from '@switchyard/test-databases';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../__fixtures__/run-cli';
import { createServeDatabase } from './__fixtures__/serve-folder';

// The chaos test of durable turns (issue 41), small: real `switchyard serve` processes run workflow
// tasks, jobs, schedule fires and API turns whose every `run_command` appends a line to a ledger file in
// the agent's home, while the driver SIGKILLs them (at random, and aimed just after a model answer,
// during a call, and between a call's effect and its record) and starts each again at once. The bench's
// `chaos` suite runs the same driver with a thousand kills.

const backends = [
  {
    title: 'embedded PGlite (one process, killed and restarted)',
    runs: true,
    create: () => createServeDatabase('pglite'),
    slots: 1,
    // Each restart reopens the database (seconds): units are kept running longer by a wider gap.
    inFlight: 6,
    gapMs: [1_000, 2_500] as const,
  },
  {
    title: `${postgresTitle}: a fleet of two processes`,
    runs: postgresUrl !== null,
    create: () => createServeDatabase('postgres'),
    slots: 2,
    // Two processes finish a dozen units quickly: fewer at once and closer kills, so each one cuts work.
    inFlight: 3,
    gapMs: [400, 1_200] as const,
  },
];

for (const backend of backends) {
  describe.runIf(backend.runs)(`chaos on ${backend.title}`, () => {
    let folder: string | undefined;
    let database: TestDatabase | undefined;

    afterEach(async () => {
      await database?.dispose();
      if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    });

    it(
      'repeats no recorded call or model step, reruns no call in doubt, and loses no unit',
      // A safety net: a minute or two on a quiet machine, six on two cores at a load of 30.
      { timeout: 900_000 },
      async () => {
        database = await backend.create();
        folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-chaos-'));
        const options = database.options;
        const result = await runChaos({
          cliPath,
          folder,
          database: 'dataDir' in options ? { dataDir: options.dataDir } : { url: options.databaseUrl },
          openControlPlane: (queues) => openControlPlane({ ...options, ...queues, environment: {} }),
          slots: backend.slots,
          kills: 5,
          units: 12,
          inFlight: backend.inFlight,
          gapMs: backend.gapMs,
          // A safety net, not the expected time: units end within seconds of the last kill, but one
          // whose process died between its queue's delivery and its turn's record, or between its
          // turn's end and its queue hearing of it, comes back only once its delivery expires (the
          // driver's 40 s expiry, then the queue's next maintenance), and a loaded machine is slow.
          settleMs: 300_000,
          log: (line) => console.info(line),
        });
        console.info(`chaos on ${backend.title}: ${JSON.stringify(result)}`);

        // The run did what it is for: its kills landed and its units started. How many kills cut a
        // unit, and where, depends on the machine's speed: logged above, not asserted.
        expect(result.kills).toBe(5);
        expect(result.units + result.unposted).toBeGreaterThanOrEqual(12);
        expect(result.units).toBeGreaterThan(0);
        expect(result.strayRequests).toBe(0);
        // The goals: no call ran twice, no recorded step was asked for again, no unit was lost.
        expect(result.problems).toEqual([]);
        expect(result.recordedOutputRunAgain + result.unrecordedRunAgain).toBe(0);
        expect(result.repeatedRequests).toBe(0);
        expect(result.inDoubtRunAgain).toBe(0);
        expect(result.unitsLost).toBe(0);
      },
    );
  });
}
