import { describe, expect, it } from 'vitest';
import { cpuSince, readCpu } from './process-cpu';

describe('cpuSince', () => {
  it("reads this process's CPU time and the share of the machine's cores that were busy", () => {
    const before = readCpu();
    // Spin until this process has used 100 ms of CPU (however long a loaded machine takes to give it).
    const deadline = Date.now() + 30_000;
    while (cpuSince(before).ownMs < 100 && Date.now() < deadline) {
      for (let index = 0; index < 1e5; index += 1) Math.sqrt(index);
    }
    const used = cpuSince(before);
    expect(used.ownMs).toBeGreaterThanOrEqual(100);
    // One core of the machine was busy with this loop the whole time, at least.
    expect(used.coresBusy).toBeGreaterThan(0);
    expect(used.coresBusy).toBeLessThanOrEqual(1);
  });
});
