import { ZERO_USAGE } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import { heldTurnJournal } from './turn-journal';

// `serve.journal: false`'s journal on a real control plane (PGlite): nothing written until a call of
// the turn is held, then everything so far, then each entry as it comes.

const bed = testControlPlaneForSuite();
const WORKER = 'worker_held_journal';
let turnNumber = 0;

async function recordTurn(): Promise<string> {
  turnNumber += 1;
  const id = `turn_held_journal_${turnNumber}`;
  await bed.controlPlane.turns.recordStart({
    id,
    agentId: 'ada',
    source: 'api',
    prompt: 'go',
    workerId: WORKER,
  });
  return id;
}

const response = (iteration: number) => ({
  iteration,
  id: `resp_${iteration}`,
  items: [],
  usage: ZERO_USAGE,
});
const start = (itemIndex: number) => ({
  itemIndex,
  callId: `call_${itemIndex}`,
  key: 'run_command',
  idempotencyKey: `key_${itemIndex}`,
});

describe('the journal of a turn under serve.journal: false (PGlite)', () => {
  it('writes nothing until kept, then every entry so far, then each one as it comes', async () => {
    const turnId = await recordTurn();
    const { journals } = bed.controlPlane;
    let opened = 0;
    const held = heldTurnJournal(async () => {
      opened += 1;
      return (await journals.open({ turnId, workerId: WORKER, fresh: true })).journal;
    });
    await held.journal.response(response(1));
    await held.journal.callStarted(start(1));
    await held.journal.response(response(2));
    expect(opened).toBe(0);
    expect(await journals.read(turnId)).toEqual({ responses: [], started: [], outputs: [] });

    // An entry given while the kept ones are written lands after them.
    const keeping = held.keep();
    const during = held.journal.callStarted(start(3));
    await Promise.all([keeping, during, held.keep()]);
    expect(opened).toBe(1);
    const kept = await journals.read(turnId);
    expect(kept.responses.map((entry) => entry.iteration)).toEqual([1, 2]);
    expect(kept.started.map((entry) => entry.itemIndex)).toEqual([1, 3]);

    await held.journal.response(response(3));
    expect((await journals.read(turnId)).responses.map((entry) => entry.iteration)).toEqual([1, 2, 3]);
  });

  it('rejects `keep` when the entries cannot be stored (the turn is not this worker’s), and later writes with it', async () => {
    const turnId = await recordTurn();
    const held = heldTurnJournal(
      async () =>
        (await bed.controlPlane.journals.open({ turnId, workerId: 'worker_other', fresh: true })).journal,
    );
    await held.journal.response(response(1));
    await expect(held.keep()).rejects.toThrow();
    await expect(held.journal.response(response(2))).rejects.toThrow();
    expect((await bed.controlPlane.journals.read(turnId)).responses).toEqual([]);
  });
});
