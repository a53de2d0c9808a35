import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type ControlPlane, openControlPlane } from '@switchyard/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlotWaiters } from './slot-waiters';

describe('turns waiting for a slot among their agent’s turns at once', () => {
  let folder: string;
  let controlPlane: ControlPlane;
  let sequence = 0;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'switchyard-slots-'));
    controlPlane = await openControlPlane({ dataDir: path.join(folder, 'db') });
  }, 120_000);

  afterAll(async () => {
    await controlPlane?.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** Records a running turn of `agentId`; its id. */
  async function turn(agentId: string): Promise<string> {
    sequence += 1;
    const id = `turn_slots_${sequence}`;
    await controlPlane.turns.recordStart({ id, agentId, source: 'api', prompt: 'p', workerId: 'w' });
    return id;
  }

  const end = (id: string) =>
    controlPlane.turns.recordEnd({
      id,
      status: 'completed',
      output: '',
      usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 },
      iterations: 1,
    });

  /** The real store, each question noted by turn id. */
  function counted(asked: string[]) {
    return {
      admitTurn: (request: { turnId: string; agentId: string; turnsAtOnce: number }) => {
        asked.push(request.turnId);
        return controlPlane.budgets.admitTurn(request);
      },
    };
  }

  it('asks only for the first of the line, in order, as soon as a turn of the agent ends here', async () => {
    const asked: string[] = [];
    // Polls an hour apart: only `slotFreed` can move the line within the test.
    const slots = new SlotWaiters(counted(asked), 3_600_000);
    const request = (turnId: string) => ({ turnId, agentId: 'ada', turnsAtOnce: 1 });
    const holder = await turn('ada');
    expect((await controlPlane.budgets.admitTurn(request(holder))).admitted).toBe(true);
    const [b, c, d] = [await turn('ada'), await turn('ada'), await turn('ada')];
    const order: string[] = [];
    const waits = [b, c, d].map((id) =>
      slots.wait(request(id), new AbortController().signal).then((admitted) => {
        order.push(id);
        return admitted;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The first in line asked once; the others have not asked at all.
    expect(asked).toEqual([b]);
    for (const [index, id] of [holder, b, c].entries()) {
      await end(id);
      slots.slotFreed('ada');
      expect(await waits[index]).toBe(true);
    }
    expect(order).toEqual([b, c, d]);
    // Each later one asked when it came first in line (refused: the one before it just took the
    // slot), then once when woken: never while others were ahead of it.
    expect(asked.filter((id) => id === c)).toHaveLength(2);
    expect(asked.filter((id) => id === d)).toHaveLength(2);
    await end(d);
  });

  it('lets a turn whose signal aborts leave the line at once, and asks again every poll for a slot freed elsewhere', async () => {
    const asked: string[] = [];
    const slots = new SlotWaiters(counted(asked), 200);
    const request = (turnId: string) => ({ turnId, agentId: 'bob', turnsAtOnce: 1 });
    const holder = await turn('bob');
    expect((await controlPlane.budgets.admitTurn(request(holder))).admitted).toBe(true);
    const [first, second] = [await turn('bob'), await turn('bob')];
    const leaving = new AbortController();
    const firstWait = slots.wait(request(first), leaving.signal);
    const secondWait = slots.wait(request(second), new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 500));
    leaving.abort();
    expect(await firstWait).toBe(false);
    // Freed by "another process": no `slotFreed` here, the line's next poll finds it.
    await end(holder);
    expect(await secondWait).toBe(true);
    expect(asked).toContain(second);
    await end(first);
    await end(second);
  });
});
