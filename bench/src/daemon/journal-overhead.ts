// What the turn journal costs in the busy-daemon benchmark (issue 41). Beside the daemon the suite
// measures against its floor (it journals every turn, the default), a second `switchyard serve` is
// started the same way with `serve.journal: false`; both run every level in the same runs, in
// rotating order, and each run's turns per second are compared.
import { execFileSync } from 'node:child_process';
import { medianRun, ratio } from './daemon-stats';
import type { DaemonLevel } from './run-daemon-level';
import type { DaemonDatabase } from './serve-daemon';

/** Issue 41: turns per second with the journal over turns per second without it, at least. */
export const JOURNAL_OVERHEAD_TARGET = 0.9;

/** CPU time per completed turn of one daemon over its level, ms. */
export interface JournalSideCpu {
  /** The daemon's main (JavaScript) thread. */
  threadMs: number;
  /** The daemon's whole process. */
  processMs: number;
  /** The PostgreSQL server (every database: the other daemon is idle meanwhile); NaN on PGlite. */
  postgresMs: number;
}

/** One level on one backend: the daemon that journals its turns against the one that does not. */
export interface JournalOverheadRow {
  /** Turns started at once. */
  turns: number;
  /** The journaling daemon's turns per second in the run shown: the run whose ratio is the median. */
  onTurnsPerSecond: number;
  /** The daemon without journals, same run. */
  offTurnsPerSecond: number;
  /** `onTurnsPerSecond / offTurnsPerSecond` of the run shown. */
  ratio: number;
  /** Every run's ratio in the order they ran: even runs (0, 2, ...) with the journal first, odd ones without it first. */
  runRatios: number[];
  /** CPU a turn of the journaling daemon in the run shown. */
  onCpu: JournalSideCpu;
  /** CPU a turn of the daemon without journals in the run shown. */
  offCpu: JournalSideCpu;
  /** Median turn time (POST sent to the recorded end), ms, with the journal. */
  onTurnP50Ms: number;
  /** The same without it. */
  offTurnP50Ms: number;
  /** Problems of the daemon without journals in any run (the journaling one's are the suite's row's). */
  problems: string[];
}

/** What the comparison reads of one daemon's level. */
export type JournalSide = Pick<DaemonLevel, 'turnsPerSecond' | 'latency' | 'cpu' | 'problems'>;

/** One run of a level on both daemons. */
export interface JournalPair<On extends JournalSide = JournalSide> {
  on: On;
  off: JournalSide;
}

/**
 * One run of a level on both daemons, in rotating order: the journaling daemon (`on`) first in even
 * runs, the other (`off`) first in odd ones, so neither always runs on the machine the other just
 * left. `on` is the suite's own run with its floor beside it (floor then daemon in even runs, daemon
 * then floor in odd ones), so a level's runs go floor, on, off, then off, on, floor, and so on.
 */
export async function runJournalPair<On extends JournalSide>(
  run: number,
  on: () => Promise<On>,
  off: () => Promise<JournalSide>,
): Promise<JournalPair<On>> {
  if (run % 2 === 0) {
    const first = await on();
    return { on: first, off: await off() };
  }
  const first = await off();
  return { on: await on(), off: first };
}

const sideCpu = (side: JournalSide): JournalSideCpu => ({
  threadMs: side.cpu.daemonThreadMs,
  processMs: side.cpu.daemonMs,
  postgresMs: side.cpu.postgresMs,
});

/** A level's row from its runs (in the order they ran): the run with the median ratio, every ratio beside it. */
export function journalOverheadRow(turns: number, pairs: readonly JournalPair[]): JournalOverheadRow {
  const ratioOf = (pair: JournalPair) => ratio(pair.on.turnsPerSecond, pair.off.turnsPerSecond);
  const shown = medianRun(pairs, ratioOf);
  return {
    turns,
    onTurnsPerSecond: shown.on.turnsPerSecond,
    offTurnsPerSecond: shown.off.turnsPerSecond,
    ratio: ratioOf(shown),
    runRatios: pairs.map(ratioOf),
    onCpu: sideCpu(shown.on),
    offCpu: sideCpu(shown.off),
    onTurnP50Ms: shown.on.latency.p50,
    offTurnP50Ms: shown.off.latency.p50,
    problems: [...new Set(pairs.flatMap((pair) => pair.off.problems))].map(
      (problem) => `journal off: ${problem}`,
    ),
  };
}

/** The database the daemon without journals uses on this cluster. */
export const JOURNAL_OFF_DATABASE = 'bench_journal_off';

/**
 * The database of the daemon without journals, beside the journaling daemon's `database`: PGlite
 * in its own folder (each daemon has one), or on PostgreSQL a fresh database of its own in the same
 * cluster (created here with `psql`: the bench has no SQL client), so both daemons start empty and
 * share the server's settings.
 *
 * Contract: throws, naming the cluster, when the database cannot be created.
 */
export function journalOffDatabase(database: DaemonDatabase): DaemonDatabase {
  if (database.kind === 'pglite') return database;
  try {
    execFileSync('psql', [database.url, '-X', '-q', '-c', `CREATE DATABASE ${JOURNAL_OFF_DATABASE}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(
      `could not create ${JOURNAL_OFF_DATABASE} on ${database.url} for the daemon without journals: ${stderr || (error as Error).message}`,
    );
  }
  const url = new URL(database.url);
  url.pathname = `/${JOURNAL_OFF_DATABASE}`;
  return { kind: 'postgres', url: url.toString() };
}
