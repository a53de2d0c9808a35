import type { ResumableTurn } from '@switchyard/control-plane';
import { ZERO_USAGE } from '@switchyard/core/internal';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import { firstIterationCheckpoint, requestWriteApproval } from './__fixtures__/held-call';
import { readCheckpoint } from './turn-checkpoint';
import { createTurnEntry, type TurnEntry } from './turn-entry';
import {
  continueAnsweredTurns,
  continuedTurnOf,
  describeContinuation,
  releaseHeldTurn,
  resumeStateOf,
  sweepInterruptedTurns,
  whyNotContinued,
} from './turn-recovery';
import { TurnRegistry } from './turn-registry';

// Recovery and claiming on a real control plane (PGlite): the turns of a worker that stopped marked
// interrupted, a waiting turn let go at shutdown, answered turns claimed once, and a claimed turn
// filled from its checkpoint (an older worker's included).

const AGENT = 'ada';
const WORKER = 'worker_here';
const DEAD = 'worker_dead';

const transcript: ResponseInputItem[] = [
  { type: 'message', role: 'user', content: 'write' },
  { type: 'function_call', call_id: 'call_read', name: 'read_file', arguments: '{"path":"a"}' },
  { type: 'function_call', call_id: 'call_write', name: 'write_file', arguments: '{"path":"b"}' },
];

const bed = testControlPlaneForSuite();
let turnNumber = 0;

async function recordTurn(workerId: string, prompt = 'write'): Promise<string> {
  turnNumber += 1;
  const id = `turn_recovery_${turnNumber}`;
  await bed.controlPlane.turns.recordStart({ id, agentId: AGENT, source: 'api', prompt, workerId });
  return id;
}

/** A checkpoint of a turn after its first iteration, nothing let run yet. */
const FIRST_ITERATION = firstIterationCheckpoint(transcript);

/** Holds the write_file call (item 2) of `turnId`, a turn of `workerId`, with `checkpoint`. */
function holdWriteCall(turnId: string, workerId: string, checkpoint: unknown) {
  return requestWriteApproval(bed.controlPlane.approvals, {
    turnId,
    workerId,
    callId: 'call_write',
    callIndex: 2,
    activity: 'Writing b',
    arguments: { path: 'b' },
    checkpoint,
  });
}

/**
 * A turn of the dead worker held on its write_file call (item 2) with `checkpoint`, answered
 * `decision` (or left pending), let go.
 */
async function leftWaiting(checkpoint: unknown, decision?: 'allow' | 'deny'): Promise<string> {
  const turnId = await recordTurn(DEAD);
  const approval = await holdWriteCall(turnId, DEAD, checkpoint);
  if (decision !== undefined) {
    await bed.controlPlane.approvals.answer({ id: approval.id, decision, answeredBy: 'test' });
  }
  expect(await bed.controlPlane.approvals.release({ turnId, workerId: DEAD, checkpoint })).toBe(true);
  return turnId;
}

async function claim(turnId: string): Promise<ResumableTurn> {
  const claimed = await bed.controlPlane.approvals.claimResumable({
    workerId: WORKER,
    staleAfterMs: 60_000,
  });
  const turn = claimed.find((candidate) => candidate.turn.id === turnId);
  if (turn === undefined) throw new Error(`${turnId} was not claimed`);
  return turn;
}

describe('the turns of a worker that stopped (PGlite)', () => {
  it('are marked interrupted and logged; this worker’s own are left running', async () => {
    const dead = await recordTurn(DEAD);
    const own = await recordTurn(WORKER);
    const lines: string[] = [];
    const sweep = () =>
      sweepInterruptedTurns({
        records: bed.controlPlane.turns,
        workerId: WORKER,
        staleAfterMs: 0,
        log: (line) => lines.push(line),
      });
    await sweep();
    expect((await bed.controlPlane.turns.get(dead))?.status).toBe('interrupted');
    expect((await bed.controlPlane.turns.get(own))?.status).toBe('running');
    expect(lines).toEqual([`switchyard serve: marked 1 turn(s) interrupted (their worker stopped): ${dead}`]);
    // Nothing stale is left: nothing more is said.
    await sweep();
    expect(lines).toHaveLength(1);
  });
});

describe('a turn claimed from a worker that let it go (PGlite)', () => {
  // The upgrade path: the transcript checkpoint an older worker stored (version 2).
  const checkpoint = {
    version: 2,
    items: transcript,
    started: [1],
    events: [
      { type: 'text-delta', iteration: 1, delta: 'Working' },
      // As an older worker recorded a tool's own error result.
      { type: 'tool-call-end', outcome: 'completed', isError: true, callId: 'call_0' },
    ],
    iterations: 2,
    usage: { ...ZERO_USAGE, totalTokens: 40 },
    activeMs: 5_000,
    instructions: 'be brief',
    context: { unit: 'task-1' },
  };

  it('is filled from its checkpoint: its events, the part the other worker ran, the time it ran', async () => {
    const claimed = await claim(await leftWaiting(checkpoint, 'allow'));
    const { entry, context, checkpoint: read } = continuedTurnOf(claimed, 60_000);
    expect(entry.snapshot).toMatchObject({ id: claimed.turn.id, status: 'running', iterations: 2 });
    expect(entry.snapshot.usage.totalTokens).toBe(40);
    expect(entry.offset).toEqual({ iterations: 2, usage: checkpoint.usage });
    expect(entry.events[1]).toMatchObject({ type: 'tool-call-end', outcome: 'tool-error' });
    expect(entry.resumeContext).toEqual({ unit: 'task-1' });
    expect(entry.deadline?.activeMs()).toBeGreaterThanOrEqual(5_000);
    expect(context).toMatchObject({
      agentId: AGENT,
      prompt: 'write',
      source: 'api',
      turnId: claimed.turn.id,
    });
    expect(context.signal).toBe(entry.signal);
    const state = resumeStateOf(claimed, read, undefined);
    expect(state.items).toEqual(transcript);
    expect([...state.started]).toEqual([1]);
    expect([...state.approvals.keys()]).toEqual(['item:2']);
    expect(state.instructions).toBe('be brief');
    // The turn's own rebuilt instructions come first.
    expect(resumeStateOf(claimed, read, 'rebuilt').instructions).toBe('rebuilt');
    expect(describeContinuation(claimed)).toBe(
      `switchyard serve: continuing turn ${claimed.turn.id} of agent ${AGENT} (api) after its approval: write_file allowed`,
    );
    entry.deadline?.dispose();
  });

  it('reads an older worker’s checkpoint, which named the calls let run by call id', async () => {
    const older = { ...checkpoint, version: 1, started: ['call_read', 'call_unknown'] };
    const claimed = await claim(await leftWaiting(older, 'deny'));
    const { checkpoint: read, entry } = continuedTurnOf(claimed, undefined);
    expect(read).toMatchObject({ version: 2, started: [1] });
    expect(entry.deadline).toBeUndefined();
  });

  it('continues a turn held by this version from its journal: only the time it ran comes from its checkpoint', async () => {
    const small = { version: 3, activeMs: 7_000, instructions: 'be brief', context: { unit: 'task-2' } };
    const claimed = await claim(await leftWaiting(small, 'allow'));
    const { entry, checkpoint: read } = continuedTurnOf(claimed, 60_000);
    expect(read).toEqual(small);
    // Its events, usage and iterations come back as its journal is replayed: none from elsewhere.
    expect(entry.events).toEqual([]);
    expect(entry.offset).toEqual({ iterations: 0, usage: ZERO_USAGE });
    expect(entry.snapshot).toMatchObject({ status: 'running', iterations: 0, usage: ZERO_USAGE });
    expect(entry.resumeContext).toEqual({ unit: 'task-2' });
    expect(entry.deadline?.activeMs()).toBeGreaterThanOrEqual(7_000);
    const state = resumeStateOf(claimed, read, undefined);
    // No transcript: the loop starts from the prompt and replays the journal.
    expect(state.items).toBeUndefined();
    expect([...state.started]).toEqual([]);
    expect([...state.approvals.keys()]).toEqual(['item:2']);
    expect(state.instructions).toBe('be brief');
    entry.deadline?.dispose();
  });

  it('is not continued without a journal to replay, unless an older worker stored its transcript', () => {
    expect(whyNotContinued({ version: 3, activeMs: 0 }, true)).toBeUndefined();
    expect(whyNotContinued({ version: 3, activeMs: 0 }, false)).toBe(
      'the turn could not be continued: this worker has no turn journal to replay it from',
    );
    expect(whyNotContinued(readCheckpoint(checkpoint), false)).toBeUndefined();
    expect(whyNotContinued(undefined, true)).toMatch(/checkpoint is missing or unreadable/);
  });

  it('goes on from nothing when its checkpoint cannot be read', async () => {
    const claimed = await claim(await leftWaiting({ version: 9 }, 'allow'));
    const { entry, checkpoint: read } = continuedTurnOf(claimed, undefined);
    expect(read).toBeUndefined();
    expect(entry.events).toEqual([]);
    expect(entry.snapshot.iterations).toBe(0);
    expect(resumeStateOf(claimed, read, 'rebuilt')).toEqual({
      items: [],
      approvals: new Map(),
      started: new Set(),
      instructions: undefined,
    });
  });
});

describe('claiming answered turns (PGlite)', () => {
  /** This worker's turns, noting the id of each turn it is given to continue. */
  function resumingTurns() {
    const resumed: string[] = [];
    return {
      resumed,
      workerId: WORKER,
      resume: async (claimed: ResumableTurn) => resumed.push(claimed.turn.id),
    };
  }

  /** Claims and continues the answered turns of `agentIds`. */
  function continueFor(turns: ReturnType<typeof resumingTurns>, agentIds: string[]) {
    return continueAnsweredTurns({
      store: bed.controlPlane.approvals,
      turns,
      staleAfterMs: 60_000,
      agentIds,
    });
  }

  it('continues each answered turn once, and none still waiting for an answer', async () => {
    const answered = await leftWaiting(FIRST_ITERATION, 'allow');
    const unanswered = await leftWaiting(FIRST_ITERATION);
    const turns = resumingTurns();
    const { resumed } = turns;
    await continueFor(turns, [AGENT]);
    expect(resumed).toEqual([answered]);
    expect((await bed.controlPlane.turns.get(answered))?.workerId).toBe(WORKER);
    await continueFor(turns, [AGENT]);
    expect(resumed).toEqual([answered]);
    expect((await bed.controlPlane.turns.get(unanswered))?.status).toBe('waiting-approval');
  });

  it('claims only the turns of the agents it is given', async () => {
    const answered = await leftWaiting(FIRST_ITERATION, 'allow');
    const turns = resumingTurns();
    const { resumed } = turns;
    await continueFor(turns, ['bob']);
    expect(resumed).toEqual([]);
    expect((await bed.controlPlane.turns.get(answered))?.workerId).toBe(DEAD);
  });
});

describe('letting a waiting turn go at shutdown (PGlite)', () => {
  const registry = new TurnRegistry();
  const letEntryGo = (entry: TurnEntry, letGo: 'released', reason: Error) =>
    registry.letGo(entry, letGo, reason);

  /** A turn of this worker waiting on its held write_file call, as its entry, kept in `registry`. */
  async function heldHere(): Promise<TurnEntry> {
    const turnId = await recordTurn(WORKER);
    const approval = await holdWriteCall(turnId, WORKER, FIRST_ITERATION);
    const entry = createTurnEntry(
      {
        id: turnId,
        agent: AGENT,
        title: 'a turn',
        source: 'api',
        status: 'waiting-approval',
        output: '',
        usage: ZERO_USAGE,
        iterations: 1,
        createdAt: new Date().toISOString(),
      },
      undefined,
    );
    entry.held.set(2, approval);
    registry.add(entry);
    return entry;
  }

  it('stores its checkpoint, marks it released for any worker, and aborts its loop here', async () => {
    const entry = await heldHere();
    entry.events = [{ type: 'text-delta', iteration: 1, delta: 'latest' }];
    entry.instructions = 'Be brief.';
    entry.resumeContext = { task: 'task_1' };
    const released = await releaseHeldTurn(entry, {
      store: bed.controlPlane.approvals,
      workerId: WORKER,
      letGo: letEntryGo,
    });
    expect(released).toBe(true);
    expect(entry.letGo).toBe('released');
    expect(entry.signal.aborted).toBe(true);
    expect(registry.open()).not.toContain(entry);
    // Another worker claims it once answered, with the checkpoint stored at the release.
    const [approval] = [...entry.held.values()];
    await bed.controlPlane.approvals.answer({
      id: approval?.id as string,
      decision: 'allow',
      answeredBy: 'test',
    });
    const claimed = (
      await bed.controlPlane.approvals.claimResumable({ workerId: 'worker_next', staleAfterMs: 60_000 })
    ).find((turn) => turn.turn.id === entry.snapshot.id);
    // Only what the journal does not hold: no transcript, no events.
    expect(claimed?.checkpoint).toEqual({
      version: 3,
      activeMs: 0,
      instructions: 'Be brief.',
      context: { task: 'task_1' },
    });
  });

  it('leaves alone a turn the records do not have waiting on this worker', async () => {
    const entry = await heldHere();
    const released = await releaseHeldTurn(entry, {
      store: bed.controlPlane.approvals,
      workerId: 'worker_someone',
      letGo: letEntryGo,
    });
    expect(released).toBe(false);
    expect(entry.letGo).toBeUndefined();
    expect(entry.signal.aborted).toBe(false);
    expect(registry.open()).toContain(entry);
  });

  it('lets it go all the same when the release cannot be stored, saying so', async () => {
    const entry = await heldHere();
    // A checkpoint past the records' 16 MiB.
    entry.resumeContext = { note: 'x'.repeat(17 * 1024 * 1024) };
    const lines: string[] = [];
    const released = await releaseHeldTurn(entry, {
      store: bed.controlPlane.approvals,
      workerId: WORKER,
      letGo: letEntryGo,
      log: (line) => lines.push(line),
    });
    expect(released).toBe(true);
    expect(entry.letGo).toBe('released');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^switchyard serve: could not let ${entry.snapshot.id} go: .*checkpoint`),
    );
    expect((await bed.controlPlane.turns.get(entry.snapshot.id))?.status).toBe('waiting-approval');
  });
});
