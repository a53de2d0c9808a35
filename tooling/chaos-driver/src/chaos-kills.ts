import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KillRecord } from './chaos-analysis';
import type { ChaosFleet } from './chaos-fleet';
import type { AnsweredCall, ChaosModel } from './chaos-model';

/**
 * How the kills are aimed, in turn: at a random moment of a random process; just after the model's
 * answer (before its call runs); during a call (while its command sleeps); right after a call's effect
 * (its ledger line), before its output is recorded.
 */
export const AIMS = ['random', 'answer', 'call', 'record'] as const;
type Aim = (typeof AIMS)[number];

/** How long an aimed kill waits for its moment before it kills a random process instead. */
const AIM_WAIT_MS = 5_000;

/** What `injectKills` needs. */
export interface KillContext {
  fleet: ChaosFleet;
  model: ChaosModel;
  /** The ledger file's path (watched for the `record` aim). */
  ledgerPath: string;
  random: () => number;
  /** A pause before each kill: from `gapMs[0]` to `gapMs[1]` ms. */
  gapMs: readonly [number, number];
  /** Stop early when this says so (the run's own deadline). */
  stopped: () => boolean;
  /** Called after each kill (progress). */
  onKill?: (kill: KillRecord, count: number) => void;
}

/**
 * SIGKILLs `count` processes of the fleet, one at a time, each started again at once, aiming the kills
 * in turn (`AIMS`); each kill's record says which units were in flight on the process.
 */
export async function injectKills(context: KillContext, count: number): Promise<KillRecord[]> {
  const kills: KillRecord[] = [];
  for (let index = 0; index < count && !context.stopped(); index += 1) {
    const [low, high] = context.gapMs;
    await sleep(low + context.random() * (high - low));
    const wanted = AIMS[index % AIMS.length] ?? 'random';
    const { slot, aim } = await aimAt(context, wanted);
    const inFlight = unitsInFlight(context.model, slot);
    const at = await context.fleet.kill(slot);
    const kill = { at, slot, aim, inFlight };
    kills.push(kill);
    context.onKill?.(kill, kills.length);
  }
  return kills;
}

/** Units whose latest model request came from `slot` and whose final answer was not sent. */
function unitsInFlight(model: ChaosModel, slot: number): string[] {
  const latest = new Map<string, number>();
  for (const request of model.requests) latest.set(request.unit, request.slot);
  return [...latest].flatMap(([unit, from]) => (from === slot && !model.finished.has(unit) ? [unit] : []));
}

async function aimAt(context: KillContext, aim: Aim): Promise<{ slot: number; aim: string }> {
  if (aim !== 'random') {
    const call = await nextAnsweredCall(context, aim === 'call' ? 300 : 0);
    if (call !== undefined) {
      if (aim === 'answer') {
        await sleepUntil(call.answeredAt + context.random() * 15);
        return { slot: call.slot, aim };
      }
      if (aim === 'call') {
        // The command starts after the answer is read and its start recorded; it sleeps, then writes.
        await sleepUntil(call.answeredAt + 100 + context.random() * (call.sleepMs - 150));
        return { slot: call.slot, aim };
      }
      if (await ledgerLineAppears(context.ledgerPath, `${call.unit}/${call.step} `)) {
        return { slot: call.slot, aim };
      }
    }
  }
  return { slot: await randomReadySlot(context), aim: aim === 'random' ? aim : `${aim} (missed: random)` };
}

/** The next answer with a call (its command sleeping at least `minSleepMs`) on a ready slot. */
function nextAnsweredCall(context: KillContext, minSleepMs: number): Promise<AnsweredCall | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(undefined);
    }, AIM_WAIT_MS);
    const stop = context.model.onAnsweredCall((call) => {
      if (call.sleepMs < minSleepMs || !context.fleet.readySlots().includes(call.slot)) return;
      clearTimeout(timer);
      stop();
      resolve(call);
    });
  });
}

/** Resolves true as soon as the ledger holds a line starting with `prefix`, false after a while. */
function ledgerLineAppears(ledgerPath: string, prefix: string): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (found: boolean) => {
      if (done) return;
      done = true;
      watcher.close();
      clearTimeout(timer);
      resolve(found);
    };
    const check = () => {
      // A read of the whole file per change: the suite's ledger is small, the bench's a few hundred
      // kilobytes at most (a line per call).
      readFile(ledgerPath, 'utf8')
        .then((text) => {
          if (text.includes(`\n${prefix}`) || text.startsWith(prefix)) finish(true);
        })
        .catch(() => {});
    };
    const watcher = watch(ledgerPath, check);
    const timer = setTimeout(() => finish(false), AIM_WAIT_MS);
    check();
  });
}

async function randomReadySlot(context: KillContext): Promise<number> {
  for (;;) {
    const ready = context.fleet.readySlots();
    if (ready.length > 0) return ready[Math.floor(context.random() * ready.length)] ?? 0;
    await sleep(50);
  }
}

async function sleepUntil(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await sleep(wait);
}
