import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlane } from '@switchyard/control-plane';
import { queryControlPlane } from '@switchyard/control-plane/testing';
import {
  analyzeChaos,
  type ChaosFigures,
  type KillRecord,
  parseLedger,
  type UnitJournal,
} from './chaos-analysis';
import { ChaosFleet } from './chaos-fleet';
import { injectKills } from './chaos-kills';
import { ChaosModel, LEDGER_FILE } from './chaos-model';
import { CHAOS_QUEUE_POLICY, CHAOS_TURN_TIMEOUT_MS, type ChaosQueuePolicy } from './chaos-settings';
import { settle } from './chaos-settle';
import { type ChaosUnitKind, ChaosUnits } from './chaos-units';

/** The agent every chaos process serves. */
export const CHAOS_AGENT = 'chaos';

/** Options of `runChaos`. */
export interface ChaosRunOptions {
  /** The worker's built CLI (`apps/worker/dist/cli.js`). */
  cliPath: string;
  /** A fresh folder: the configuration and the agent's home (with the ledger) go there. */
  folder: string;
  /**
   * The shared database: a PostgreSQL URL (a fleet of `slots` processes, the driver's control plane
   * open beside them), or an embedded PGlite data directory (one process, `slots` 1: jobs, fires and
   * workflows are stored before it starts, API turns posted while it runs).
   */
  database: { url: string } | { dataDir: string };
  /**
   * Opens a control plane on the database (the driver's own reads and writes) with `queues`, the
   * run's queue policy (the processes' own: spread it into `openControlPlane`'s options).
   */
  openControlPlane: (queues: ChaosQueuePolicy) => Promise<ControlPlane>;
  /** Processes at once (default 2 on PostgreSQL; always 1 on PGlite). */
  slots?: number;
  /** SIGKILLs to inject. */
  kills: number;
  /** Units to start in all (default: as many as keep `inFlight` running until the kills are done). */
  units?: number;
  /** Units kept running at once (default 6). */
  inFlight?: number;
  /** Stop injecting kills after this long, ms, however many were injected (default: no limit). */
  killForMs?: number;
  /** The pause before each kill, ms (default [500, 2_500]). */
  gapMs?: readonly [number, number];
  /** Calls per unit (default 3). */
  steps?: number;
  /** How long every unit has to end after the last kill, ms (default 180 s). */
  settleMs?: number;
  /** More `serve` settings over the run's own (e.g. `{ journal: false }`, to see the figures without journals). */
  serve?: Record<string, unknown>;
  /** Seed of the run's random choices (default 1). */
  seed?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What `runChaos` returns: the figures and how the run went. */
export interface ChaosRunResult extends ChaosFigures {
  /** Processes started, the restarts included. */
  processesStarted: number;
  /** Wall time, s. */
  seconds: number;
  /** API turns no process accepted (not started, so not lost). */
  unposted: number;
  /** Requests the fake model got for no chaos unit. */
  strayRequests: number;
}

const KINDS: readonly ChaosUnitKind[] = ['api', 'job', 'fire', 'task'];

/**
 * The chaos run of durable turns (issue 41): `switchyard serve` processes run workflow tasks, jobs,
 * schedule fires and API turns whose every call appends a line to a ledger file of the driver's own,
 * while `kills` SIGKILLs hit them (`injectKills`: random, and aimed just after a model answer, during a
 * call and between a call's effect and its record), each killed process started again at once. Then
 * every unit is given `settleMs` to end, and the ledger, the fake model's requests and the turns'
 * journals are compared (`analyzeChaos`).
 *
 * Contract: the figures count what happened; the caller asserts the goals (each 0). Every process it
 * started is stopped before it returns, also when it throws.
 */
export async function runChaos(options: ChaosRunOptions): Promise<ChaosRunResult> {
  const startedAt = Date.now();
  const pglite = 'dataDir' in options.database;
  const slots = pglite ? 1 : (options.slots ?? 2);
  const random = seededRandom(options.seed ?? 1);
  const steps = options.steps ?? 3;
  const home = path.join(options.folder, 'homes', CHAOS_AGENT);
  const ledgerPath = path.join(home, LEDGER_FILE);
  await mkdir(home, { recursive: true });
  await writeFile(ledgerPath, '');
  const configPath = await writeConfig(options);
  const model = new ChaosModel({ steps, maxDelayMs: 400, random });
  const units = new ChaosUnits(CHAOS_AGENT);
  const baseURLs = [];
  for (let slot = 0; slot < slots; slot += 1) baseURLs.push(await model.startSlot(slot));
  let controlPlane: ControlPlane | undefined;
  let fleet: ChaosFleet | undefined;
  try {
    if (pglite) {
      // One process's database: what needs the control plane is stored before the process starts.
      const setup = await options.openControlPlane(CHAOS_QUEUE_POLICY);
      try {
        await storeUpFront(setup, units, options, random);
      } finally {
        await setup.close();
      }
    } else {
      controlPlane = await options.openControlPlane(CHAOS_QUEUE_POLICY);
    }
    fleet = new ChaosFleet({ cliPath: options.cliPath, configPath, cwd: options.folder, baseURLs });
    await fleet.ready();
    const running = fleet;
    let feeding = true;
    // Its failure is kept until the kills are done (a store that fails stops the run, unhandled by none).
    const fed = feed({ options, units, model, fleet: running, controlPlane, feeding: () => feeding }).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    let kills: KillRecord[];
    let feedFailure: { error: unknown } | undefined;
    try {
      kills = await injectKills(
        {
          fleet: running,
          model,
          ledgerPath,
          random,
          gapMs: options.gapMs ?? [500, 2_500],
          stopped: () => options.killForMs !== undefined && Date.now() - startedAt > options.killForMs,
          onKill: (kill, count) => {
            if (options.kills <= 50 || count % 25 === 0 || count === options.kills) {
              options.log?.(
                `chaos: kill ${count} (${kill.aim}, slot ${kill.slot}, in flight: ${kill.inFlight.join(' ') || 'none'}; ${units.started.size} units started)`,
              );
            }
          },
        },
        options.kills,
      );
      // On a loaded machine every kill may land before the units it was to cut all started: the rest
      // are started still (and run to their ends unkilled), so a run always has its units.
      const wanted = options.units;
      const deadline = Date.now() + (options.settleMs ?? 60_000);
      while (
        wanted !== undefined &&
        units.started.size + units.unposted.length < wanted &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      feeding = false;
      feedFailure = await fed;
    }
    if (feedFailure !== undefined) throw feedFailure.error;
    const lostUnits = await settle({
      units,
      model,
      fleet: running,
      controlPlane,
      openControlPlane: options.openControlPlane,
      deadline: Date.now() + (options.settleMs ?? 180_000),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    fleet = undefined;
    controlPlane ??= await options.openControlPlane(CHAOS_QUEUE_POLICY);
    const evidence = {
      kills,
      units: [...units.started.keys()],
      lostUnits,
      ledger: parseLedger(await readFile(ledgerPath, 'utf8')),
      requests: model.requests,
      finalStep: steps + 1,
      answeredAt: model.answeredAt,
      journals: await readJournals(controlPlane),
    };
    const figures = analyzeChaos(evidence);
    // A duplicate or a repeated request names its unit: what the database holds of it says why.
    const named = new Set(figures.problems.map((problem) => problem.split(/[/:]/)[0] ?? ''));
    for (const unit of lostUnits) named.delete(unit);
    for (const line of await units.describe(controlPlane, [...named])) options.log?.(`chaos: ${line}`);
    return {
      ...figures,
      processesStarted: running.started,
      seconds: (Date.now() - startedAt) / 1000,
      unposted: units.unposted.length,
      strayRequests: model.strayRequests,
    };
  } finally {
    await fleet?.terminate(10_000);
    await controlPlane?.close();
    await model.close();
  }
}

/** Writes the processes' configuration file; returns its path. */
async function writeConfig(options: ChaosRunOptions): Promise<string> {
  const configPath = path.join(options.folder, 'switchyard.config.json');
  const config = {
    model: { name: 'fake-model', maxRetries: 0 },
    database: options.database,
    categories: { computer: { homeRoot: path.join(options.folder, 'homes') } },
    // A process is taken for dead 1.5 s after its last heartbeat (on PGlite its restart takes its
    // work back at once).
    serve: {
      agents: [CHAOS_AGENT],
      port: 0,
      heartbeatMs: 200,
      staleTurnMs: 1_500,
      pollSeconds: 0.5,
      tickMs: 200,
      graceMs: 500,
      // The queues' policy (`CHAOS_QUEUE_POLICY`): a short expiry, retries at once and many of them.
      expireSeconds: CHAOS_QUEUE_POLICY.workTurns.expireInSeconds,
      retryLimit: CHAOS_QUEUE_POLICY.workTurns.retryLimit,
      retryDelaySeconds: CHAOS_QUEUE_POLICY.workTurns.retryDelaySeconds,
      retryBackoff: CHAOS_QUEUE_POLICY.workTurns.retryBackoff,
      ...options.serve,
    },
    limits: { turnTimeoutMs: CHAOS_TURN_TIMEOUT_MS },
    // The agent's budgets out of the way: a run starts hundreds of units an hour (the default 120 fires
    // an hour would hold later fires back, and 16 turns at once would queue turns behind each other).
    budgets: {
      turnsAtOnce: 10_000,
      schedulesPerHour: 1_000_000,
      scheduleFiresPerHour: 1_000_000,
      workflowsPerHour: 1_000_000,
      backgroundJobsPerHour: 1_000_000,
    },
    // Unattended turns would hold each `run_command` for an operator (the default for schedule, task
    // and job turns): the chaos is about crashes, so every call runs.
    approvals: { destructive: 'allow' },
  };
  await writeFile(configPath, JSON.stringify(config));
  return configPath;
}

/** PGlite: the run's jobs, workflows and fires (due over its first seconds), stored before it starts. */
async function storeUpFront(
  controlPlane: ControlPlane,
  units: ChaosUnits,
  options: ChaosRunOptions,
  random: () => number,
): Promise<void> {
  const total = options.units ?? 12;
  const stored = Math.floor((total * 3) / 4);
  for (let index = 0; units.started.size < stored; index += 1) {
    const kind = KINDS[1 + (index % 3)] as Exclude<ChaosUnitKind, 'api'>;
    await units.store(controlPlane, kind, 2_000 + random() * 3_000 * options.kills);
  }
}

interface RunParts {
  options: ChaosRunOptions;
  units: ChaosUnits;
  model: ChaosModel;
  fleet: ChaosFleet;
  controlPlane: ControlPlane | undefined;
}

/**
 * Keeps `inFlight` units running while `feeding()`: API turns posted to a ready process, and on
 * PostgreSQL jobs, fires (due at once) and workflows stored in turn, until `units` were started.
 */
async function feed(parts: RunParts & { feeding: () => boolean }): Promise<void> {
  const { options, units, model, fleet, controlPlane } = parts;
  const limit = options.units ?? Number.POSITIVE_INFINITY;
  const inFlight = options.inFlight ?? 6;
  // A unit out of attempts ends failed without a final answer: on PostgreSQL the records say so.
  let ended = new Set<string>();
  for (let index = 0; parts.feeding(); index += 1) {
    if (controlPlane !== undefined && index % 10 === 0) ended = await units.ended(controlPlane);
    const active = [...units.started.keys()].filter(
      (unit) => !model.finished.has(unit) && !ended.has(unit),
    ).length;
    const kind = controlPlane === undefined ? 'api' : (KINDS[index % KINDS.length] ?? 'api');
    if (active >= inFlight || units.started.size + units.unposted.length >= limit) {
      await sleep(200);
      continue;
    }
    if (kind === 'api') {
      // Every ready process in turn, starting at a different one each time; slot 0 when none is.
      const ready = fleet.readySlots();
      const order = ready.length === 0 ? [0] : ready.map((_, at) => ready[(at + index) % ready.length] ?? 0);
      await units.post(order.map((slot) => () => fleet.process(slot).url));
    } else if (controlPlane !== undefined) {
      await units.store(controlPlane, kind);
    }
  }
}

/** The journals of every chaos unit's turns (`controlPlane.journals.read`), merged per unit. */
async function readJournals(controlPlane: ControlPlane): Promise<Map<string, UnitJournal>> {
  const { rows } = await queryControlPlane<{ id: string; prompt: string }>(
    controlPlane,
    `SELECT id, prompt FROM switchyard.turns WHERE agent_id = $1 AND prompt LIKE 'CHAOS %' ORDER BY created_at`,
    [CHAOS_AGENT],
  );
  const journals = new Map<
    string,
    { responses: UnitJournal['responses'][number][]; turns: UnitJournal['turns'][number][] }
  >();
  for (const row of rows) {
    const unit = row.prompt.slice('CHAOS '.length);
    const recorded = await controlPlane.journals.read(row.id);
    const journal = journals.get(unit) ?? { responses: [], turns: [] };
    journal.responses.push(
      ...recorded.responses.map((response) => ({ iteration: response.iteration, id: response.id })),
    );
    journal.turns.push({
      started: recorded.started.map((call) => call.callId),
      outputs: recorded.outputs.map((output) => output.callId),
    });
    journals.set(unit, journal);
  }
  return journals;
}

/** A small deterministic random source (mulberry32), so a run's choices can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
