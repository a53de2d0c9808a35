import { ZERO_USAGE } from '@switchyard/core/internal';
import { beforeAll, describe, expect, it } from 'vitest';
import { testControlPlaneForSuite } from '../__fixtures__/test-control-plane';
import type { DaemonTurnEvent, DaemonTurnSnapshot } from './daemon-turn-types';
import { createTurnEntry, isOpenTurn, type TurnEntry } from './turn-entry';
import { retainedSizeOf, TurnRegistry } from './turn-registry';

// The turn registry on its own: what it keeps of open and finished turns, how a follower and an
// observer see them, and (on a real control plane, PGlite) the turns it reads from the records.

function openTurn(id: string): TurnEntry {
  return createTurnEntry(
    {
      id,
      agent: 'ada',
      title: 'a turn',
      source: 'api',
      status: 'running',
      output: '',
      usage: ZERO_USAGE,
      iterations: 0,
      createdAt: new Date(0).toISOString(),
    },
    undefined,
  );
}

// Stamped already (as a continued turn's replayed events are): the registry keeps a time it is given.
const AT = '2026-12-05T00:00:00.000Z';
const delta = (text: string): DaemonTurnEvent => ({ type: 'text-delta', iteration: 1, delta: text, at: AT });

/** Adds a turn, gives it `output`, and ends it as `DaemonTurns` does. */
function finish(registry: TurnRegistry, entry: TurnEntry, output = ''): void {
  entry.snapshot.status = 'completed';
  entry.snapshot.output = output;
  registry.ended(entry);
  registry.changed(entry);
}

function started(registry: TurnRegistry, id: string): TurnEntry {
  const entry = openTurn(id);
  registry.add(entry);
  registry.changed(entry);
  return entry;
}

describe('finished turns kept in memory', () => {
  it('keeps at most maxRetainedTurns finished ones, dropping the oldest first', () => {
    const registry = new TurnRegistry({ maxRetainedTurns: 2 });
    for (const id of ['turn_a', 'turn_b', 'turn_c']) finish(registry, started(registry, id));
    expect(registry.list().map((turn) => turn.id)).toEqual(['turn_b', 'turn_c']);
    expect(registry.retained().turns).toBe(2);
  });

  it('keeps them under maxRetainedTurnBytes, each measured once it ended; the newest goes too when it alone is over', () => {
    const registry = new TurnRegistry({ maxRetainedTurnBytes: 2_500 });
    finish(registry, started(registry, 'turn_a'), 'a'.repeat(1_000));
    finish(registry, started(registry, 'turn_b'), 'b'.repeat(1_000));
    expect(registry.retained()).toEqual({ turns: 2, bytes: 2 * (2 + 1_000) });
    finish(registry, started(registry, 'turn_c'), 'c'.repeat(1_000));
    expect(registry.list().map((turn) => turn.id)).toEqual(['turn_b', 'turn_c']);
    finish(registry, started(registry, 'turn_d'), 'd'.repeat(3_000));
    expect(registry.list()).toEqual([]);
    expect(registry.retained()).toEqual({ turns: 0, bytes: 0 });
  });

  it('never drops an open turn, whatever the budgets', () => {
    const registry = new TurnRegistry({ maxRetainedTurns: 0, maxRetainedTurnBytes: 0 });
    const open = started(registry, 'turn_open');
    finish(registry, started(registry, 'turn_done'), 'done');
    expect(registry.list().map((turn) => turn.id)).toEqual(['turn_open']);
    expect(registry.running).toBe(1);
    expect(registry.open()).toEqual([open]);
  });

  it('drops the turns that closed first, whenever they started', () => {
    const registry = new TurnRegistry({ maxRetainedTurns: 1 });
    const early = started(registry, 'turn_early');
    const late = started(registry, 'turn_late');
    finish(registry, late);
    finish(registry, early);
    expect(registry.list().map((turn) => turn.id)).toEqual(['turn_early']);
  });

  it('counts a turn let go as closed at once, and its size once its loop ends', () => {
    const registry = new TurnRegistry();
    const entry = started(registry, 'turn_let_go');
    registry.push(entry, delta('so far'));
    registry.letGo(entry, 'taken-over', new Error('another worker took it over'));
    expect(registry.running).toBe(0);
    expect(registry.retained()).toEqual({ turns: 1, bytes: 0 });
    // Its loop sees the abort and ends as `DaemonTurns` ends a turn let go.
    registry.ended(entry);
    expect(registry.retained()).toEqual({ turns: 1, bytes: retainedSizeOf(entry) });
    expect(registry.retained().bytes).toBeGreaterThan(0);
  });

  it('counts a continued turn once, in place of the one it replaces', () => {
    const registry = new TurnRegistry();
    const first = started(registry, 'turn_again');
    registry.letGo(first, 'released', new Error('the worker shut down'));
    registry.ended(first);
    const continued = started(registry, 'turn_again');
    expect(registry.running).toBe(1);
    expect(registry.retained()).toEqual({ turns: 0, bytes: 0 });
    // The old entry's late end changes nothing.
    registry.ended(first);
    expect(registry.open()).toEqual([continued]);
    expect(registry.retained()).toEqual({ turns: 0, bytes: 0 });
  });

  it('keeps its counts equal to a walk of every turn kept, over many starts, ends, let-gos and drops', () => {
    const registry = new TurnRegistry({ maxRetainedTurns: 40, maxRetainedTurnBytes: 6_000 });
    const open: TurnEntry[] = [];
    // A fixed pseudo-random sequence (a linear congruential generator, its high bits), so a failure replays.
    let seed = 46;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    for (let step = 0; step < 2_000; step += 1) {
      const action = next(4);
      if (action === 0 || open.length === 0) {
        // A new turn, or now and then one continued under an id kept before.
        const id = next(5) === 0 && step > 0 ? `turn_${next(step)}` : `turn_${step}`;
        open.push(started(registry, id));
      } else {
        const [entry] = open.splice(next(open.length), 1);
        if (entry === undefined) continue;
        if (action === 3) {
          registry.letGo(entry, 'released', new Error('let go'));
          registry.ended(entry);
        } else {
          finish(registry, entry, 'x'.repeat(next(400)));
          // A finished turn's end drops what is over the budgets (a let-go's waits for the next one).
          expect(registry.retained().turns).toBeLessThanOrEqual(40);
          expect(registry.retained().bytes).toBeLessThanOrEqual(6_000);
        }
      }
      const kept = [...registry.entries()];
      const walked = kept.filter((entry) => !isOpenTurn(entry));
      expect(registry.running).toBe(kept.filter(isOpenTurn).length);
      expect(registry.retained()).toEqual({
        turns: walked.length,
        bytes: walked.reduce((sum, entry) => sum + entry.retainedBytes, 0),
      });
    }
  });

  it('measures an ended turn as the JSON of its joined log plus its output and error', () => {
    const entry = openTurn('turn_measured');
    entry.events = [delta('hello')];
    entry.snapshot.output = 'hello';
    entry.snapshot.error = 'oops';
    expect(retainedSizeOf(entry)).toBe(JSON.stringify(entry.events).length + 5 + 4);
  });
});

describe('following and observing turns', () => {
  it('gives a follower the log so far with deltas joined, then each later event, until the turn ends', () => {
    const registry = new TurnRegistry();
    const entry = started(registry, 'turn_followed');
    registry.push(entry, delta('Hel'));
    registry.push(entry, delta('lo'));
    const live: DaemonTurnEvent[] = [];
    const followed = registry.follow('turn_followed', (event) => live.push(event));
    expect(followed).toMatchObject({ past: [delta('Hello')], live: true });
    registry.push(entry, delta(' world'));
    finish(registry, entry, 'Hello world');
    expect(live).toEqual([delta(' world')]);
    // The copy handed out is not changed by what came after.
    expect(followed?.past).toEqual([delta('Hello')]);
    expect(registry.follow('turn_followed', () => {})).toMatchObject({
      past: [delta('Hello world')],
      live: false,
    });
    expect(registry.follow('turn_unknown', () => {})).toBeUndefined();
  });

  it('stops calling a follower that stopped', () => {
    const registry = new TurnRegistry();
    const entry = started(registry, 'turn_stopped');
    const live: DaemonTurnEvent[] = [];
    registry.follow('turn_stopped', (event) => live.push(event))?.stop();
    registry.push(entry, delta('unseen'));
    expect(live).toEqual([]);
  });

  it('tells every observer of each event and of each start and end, whatever another observer throws', () => {
    const registry = new TurnRegistry();
    const seen: Array<[string, DaemonTurnSnapshot['status'], string | undefined]> = [];
    registry.observe(() => {
      throw new Error('a broken observer');
    });
    const stop = registry.observe((turn, event) => seen.push([turn.id, turn.status, event?.type]));
    const entry = started(registry, 'turn_observed');
    registry.push(entry, delta('x'));
    finish(registry, entry);
    stop();
    finish(registry, started(registry, 'turn_unobserved'));
    expect(seen).toEqual([
      ['turn_observed', 'running', undefined],
      ['turn_observed', 'running', 'text-delta'],
      ['turn_observed', 'completed', undefined],
    ]);
  });

  it('stamps an event with the time it took it, and a joined text delta keeps the first one’s time', () => {
    const registry = new TurnRegistry();
    const entry = started(registry, 'turn_timed');
    const before = Date.now();
    registry.push(entry, { type: 'text-delta', iteration: 1, delta: 'a' });
    registry.push(entry, { type: 'text-delta', iteration: 1, delta: 'b' });
    const after = Date.now();
    expect(entry.events).toHaveLength(1);
    const stamped = Date.parse(entry.events[0]?.at ?? '');
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(after);
    expect(entry.events[0]).toMatchObject({ delta: 'ab' });
    registry.push(entry, { type: 'text-delta', iteration: 2, delta: 'given', at: AT });
    expect(entry.events[1]?.at).toBe(AT);
  });

  it('takes no more events of a turn let go, which is no longer this process’s own', () => {
    const registry = new TurnRegistry();
    const entry = started(registry, 'turn_let_go');
    registry.push(entry, delta('before'));
    registry.letGo(entry, 'released', new Error('the worker shut down'));
    registry.push(entry, delta('after'));
    expect(entry.signal.aborted).toBe(true);
    expect(entry.events).toEqual([delta('before')]);
    expect(registry.has('turn_let_go')).toBe(false);
    expect(registry.running).toBe(0);
    expect(registry.get('turn_let_go')?.id).toBe('turn_let_go');
  });
});

describe('turns read from the records (PGlite)', () => {
  const bed = testControlPlaneForSuite();

  beforeAll(async () => {
    const { turns } = bed.controlPlane;
    await turns.recordStart({
      id: 'turn_elsewhere',
      agentId: 'ada',
      source: 'api',
      prompt: 'hi',
      workerId: 'worker_other',
    });
    await turns.recordEnd({
      id: 'turn_elsewhere',
      status: 'completed',
      output: 'done elsewhere',
      usage: ZERO_USAGE,
      iterations: 1,
      // As an older worker recorded a tool's own error result.
      events: [{ type: 'tool-call-end', outcome: 'completed', isError: true, callId: 'call_1' }],
    });
  });

  it('finds a turn not in memory in the records, and one in memory without reading them', async () => {
    const registry = new TurnRegistry({ records: bed.controlPlane.turns });
    expect(await registry.find('turn_elsewhere')).toMatchObject({
      id: 'turn_elsewhere',
      agent: 'ada',
      status: 'completed',
      output: 'done elsewhere',
    });
    expect(registry.has('turn_elsewhere')).toBe(false);
    // In memory (here under an id the records do not know), the registry answers itself.
    started(registry, 'turn_here');
    expect(await registry.find('turn_here')).toMatchObject({ id: 'turn_here', status: 'running' });
    expect(await registry.find('turn_unknown')).toBeUndefined();
  });

  it('reads a turn let go here from the records, where another process continues it', async () => {
    const registry = new TurnRegistry({ records: bed.controlPlane.turns });
    const entry = started(registry, 'turn_elsewhere');
    registry.letGo(entry, 'taken-over', new Error('another worker took it over'));
    expect(await registry.find('turn_elsewhere')).toMatchObject({ output: 'done elsewhere' });
  });

  it('reads a recorded log in today’s vocabulary', async () => {
    const registry = new TurnRegistry({ records: bed.controlPlane.turns });
    expect(await registry.recordedEvents('turn_elsewhere')).toEqual([
      { type: 'tool-call-end', outcome: 'tool-error', isError: true, callId: 'call_1' },
    ]);
    expect(await new TurnRegistry().recordedEvents('turn_elsewhere')).toBeUndefined();
  });
});
