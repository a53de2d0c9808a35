import {
  TURNS_IN_FLIGHT_TARGETS,
  type TurnsInFlightResult,
  type TurnsInFlightRow,
} from '../suites/turns-in-flight';
import { percentText } from './report-format';

const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');
const millis = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : '-');
const megabytes = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : '-');
const sum = (counts: Record<string, number>) =>
  Object.values(counts).reduce((total, count) => total + count, 0);

function answers(row: TurnsInFlightRow): string {
  const statuses = Object.entries(row.statuses).map(([status, count]) => `${count} x ${status}`);
  const errors = Object.entries(row.errors).map(([code, count]) => `${count} ${code}`);
  return [...statuses, ...(errors.length === 0 ? [] : [`no answer: ${errors.join(', ')}`])].join(', ');
}

/** Whether every POST of the row was answered `202` and every turn completed. */
export function allCompleted(row: TurnsInFlightRow): boolean {
  return (
    sum(row.errors) === 0 &&
    (row.statuses['202'] ?? 0) === row.turns &&
    row.completed === row.turns &&
    row.problems.length === 0
  );
}

const finite = (ms: number) => (Number.isFinite(ms) ? ms : 0);

/**
 * Where the level's CPU went: the share of the cores busy, each process's CPU a turn, and their sum
 * over the level's turns as time of all the machine's cores.
 */
function cpuNote(result: TurnsInFlightResult, row: TurnsInFlightRow): string {
  const perTurn =
    finite(row.cpuPerTurnMs.process) + finite(row.cpuPerTurnMs.postgres) + finite(row.benchCpuPerTurnMs);
  const postgres = Number.isFinite(row.cpuPerTurnMs.postgres)
    ? `, PostgreSQL ${row.cpuPerTurnMs.postgres.toFixed(1)} ms`
    : '';
  return `the machine's ${result.cores} cores were ${percentText(row.coresBusy)} busy from the burst to the last end; per completed turn the daemon's process used ${row.cpuPerTurnMs.process.toFixed(1)} ms of CPU${postgres} and the benchmark's process (the fake model's server) ${row.benchCpuPerTurnMs.toFixed(1)} ms: ${row.completed} turns x ${perTurn.toFixed(1)} ms is ${seconds((row.completed * perTurn) / result.cores)} of all ${result.cores} cores`;
}

/** `(the floor's median: N x the model's; the daemon's median is M x the floor's; where the CPU went)`. */
function floorNote(result: TurnsInFlightResult, row: TurnsInFlightRow): string {
  const floor = result.floors.find((candidate) => candidate.turns === row.turns);
  const model = result.requestsPerTurn * result.modelLatencyMs;
  const notes = [
    ...(floor === undefined || !Number.isFinite(floor.turnMs.p50)
      ? []
      : [
          `on this machine a bare openai loop's median at the same level is ${(floor.turnMs.p50 / model).toFixed(2)}x the model's; the daemon's is ${(row.turnMs.p50 / floor.turnMs.p50).toFixed(2)}x the bare loop's`,
        ]),
    cpuNote(result, row),
  ];
  return ` (${notes.join('; ')})`;
}

/** The target lines of issue 46, each met or missed by how much (ratios judged at two decimals). */
export function turnsInFlightTargetLines(result: TurnsInFlightResult): string[] {
  const model = result.requestsPerTurn * result.modelLatencyMs;
  const lines: string[] = [];
  for (const row of result.rows.filter((candidate) => candidate.turns === 2000)) {
    const name = row.backend === 'pglite' ? 'embedded PGlite' : 'PostgreSQL';
    const ratio = Number((row.turnMs.p50 / model).toFixed(2));
    const limit = TURNS_IN_FLIGHT_TARGETS.medianToModel[row.backend];
    const checks = [
      allCompleted(row)
        ? 'every POST answered 202 and every turn completed: met'
        : `completion: missed (${answers(row)}; ${row.completed} completed)`,
      `median turn ${ratio.toFixed(2)}x the model's ${seconds(model)} (target <= ${limit}x): ${ratio <= limit ? 'met' : `missed by ${(ratio - limit).toFixed(2)}x`}${floorNote(result, row)}`,
      `/healthz p99 on the API's port ${millis(row.apiHealth.p99Ms)} (target <= ${TURNS_IN_FLIGHT_TARGETS.healthP99Ms} ms): ${row.apiHealth.p99Ms <= TURNS_IN_FLIGHT_TARGETS.healthP99Ms ? 'met' : 'missed'}`,
      `peak RSS ${megabytes(row.peakRss)} (target <= 1024 MB): ${row.peakRss <= TURNS_IN_FLIGHT_TARGETS.peakRss2000 ? 'met' : 'missed'}`,
    ];
    lines.push(`- ${name}, 2,000 in flight: ${checks.join('; ')}`);
  }
  for (const row of result.rows.filter(
    (candidate) => candidate.turns === 5000 && candidate.backend === 'postgres',
  )) {
    lines.push(
      `- PostgreSQL, 5,000 in flight: ${allCompleted(row) ? 'all completed' : `not all completed (${row.completed} of ${row.turns})`}, peak RSS ${megabytes(row.peakRss)} (target <= 2048 MB): ${allCompleted(row) && row.peakRss <= TURNS_IN_FLIGHT_TARGETS.peakRss5000 ? 'met' : 'missed'}`,
    );
  }
  return lines;
}

/** The turns-in-flight section of RESULTS.md. */
export function renderTurnsInFlightSection(result: TurnsInFlightResult): string {
  const model = result.requestsPerTurn * result.modelLatencyMs;
  return [
    '<!-- bench:turns-in-flight -->',
    '## Turns in flight',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=turns-in-flight\` reruns only this section; \`BENCH_FLIGHT_LEVELS=500\` and \`BENCH_FLIGHT_BACKENDS=postgres\` a smaller run). Issue 46: per level, that many \`POST /v1/turns\` sent at once (each on a connection of its own) to a fresh \`switchyard serve\` (the built CLI, the turn journal on as by default, \`serve.maxWaitingWork\` raised to the level plus 100 so none is shed, the agent's \`budgets.turnsAtOnce\` 10,000 so none waits for a slot (the default, 16, would run them 16 at a time), a warm-up turn first), each turn ${result.requestsPerTurn} model requests (${result.requestsPerTurn - 1} \`list_files\` calls, then a text answer) that the testkit's fake Responses server answers after ${result.modelLatencyMs} ms each: the model alone needs ${seconds(model)} a turn. Turn time: from the turn record's start to its end; from POST: from the burst's start to the turn's end. \`/healthz\` polled every 50 ms, one request at a time, on the API's port and on the health port (\`serve.healthPort\`), from a process of its own, as an orchestrator's probe is (in the benchmark's process it would wait behind the fake model's work there). RSS sampled every 100 ms; per turn in flight: (peak - before) / level. CPU per completed turn from \`/proc\`: the daemon's process (all threads), its main thread, the PostgreSQL server, and the benchmark's own (the fake model's server, the POSTs: a remote model's share, here on the same cores). Cores busy: \`/proc/stat\`, the whole machine from the burst's start until \`/healthz\` reports no turn running (polled every 250 ms). Statements: \`pg_stat_statements\` of the level's database (BEGIN/COMMIT included) per completed turn. Event-loop delay: the preloaded monitor over the level. The floor rows: the same turns, all at once, through a bare \`openai\` loop in a process of its own against the same fake model (\`list_files\` answered by \`readdir\`), after the daemons, on the same cores as the fake model: what a bare loop, whose turns share one JavaScript thread, gets on this machine with no daemon (its cores-busy column says how much of the machine it used).`,
    '',
    "| backend | in flight | answers | completed | turn p50 / p99 | vs model (p50) | from POST p50 / p99 | last end | `/healthz` p99 / max, API port | `/healthz` p99 / max, health port | loop delay p99 / max | RSS before / peak | RSS per turn | CPU a turn: process / thread / PostgreSQL | CPU a turn: fake model's process | cores busy | statements a turn |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) =>
        `| ${row.backend} | ${row.turns} | ${answers(row)} | ${row.completed} | ${seconds(row.turnMs.p50)} / ${seconds(row.turnMs.p99)} | ${(row.turnMs.p50 / model).toFixed(2)}x | ${seconds(row.fromPostMs.p50)} / ${seconds(row.fromPostMs.p99)} | ${seconds(row.wallMs)} | ${millis(row.apiHealth.p99Ms)} / ${millis(row.apiHealth.maxMs)} | ${millis(row.healthPort.p99Ms)} / ${millis(row.healthPort.maxMs)} | ${millis(row.loopDelay.p99Ms)} / ${millis(row.loopDelay.maxMs)} | ${megabytes(row.idleRss)} / ${megabytes(row.peakRss)} | ${(row.rssPerTurn / 1024).toFixed(0)} KB | ${row.cpuPerTurnMs.process.toFixed(1)} / ${row.cpuPerTurnMs.thread.toFixed(1)} / ${Number.isFinite(row.cpuPerTurnMs.postgres) ? row.cpuPerTurnMs.postgres.toFixed(1) : '-'} ms | ${row.benchCpuPerTurnMs.toFixed(1)} ms | ${percentText(row.coresBusy)} | ${Number.isFinite(row.statementsPerTurn) ? row.statementsPerTurn.toFixed(1) : '-'} |`,
    ),
    ...result.floors.map(
      (floor) =>
        `| floor: bare openai loop | ${floor.turns} | - | ${floor.completed} | ${seconds(floor.turnMs.p50)} / ${seconds(floor.turnMs.p99)} | ${(floor.turnMs.p50 / model).toFixed(2)}x | - | - | - | - | - | - | - | ${floor.cpuPerTurnMs.toFixed(1)} / - / - ms | ${floor.benchCpuPerTurnMs.toFixed(1)} ms | ${percentText(floor.coresBusy)} | - |`,
    ),
    '',
    ...result.rows.flatMap((row) =>
      row.problems.map((problem) => `- ${row.backend}, ${row.turns} in flight: ${problem}`),
    ),
    ...result.skipped.map((reason) => `- Skipped: ${reason}`),
    '',
    'Targets (issue 46):',
    '',
    ...turnsInFlightTargetLines(result),
    '',
    '<!-- /bench:turns-in-flight -->',
  ].join('\n');
}
