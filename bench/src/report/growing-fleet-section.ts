import { verdict } from '../daemon/daemon-stats';
import { FLEET_SCALING_TARGET, type GrowingFleetResult, type GrowingFleetRow } from '../suites/growing-fleet';
import { asPrinted, marked, perSecondText, ratioText } from './report-format';

const perTask = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');

const coresOf = (row: GrowingFleetRow) => row.coresBusy.serve + row.coresBusy.postgres + row.coresBusy.bench;

const coresText = (row: GrowingFleetRow) =>
  Number.isFinite(coresOf(row))
    ? `${coresOf(row).toFixed(2)} (${row.coresBusy.serve.toFixed(2)} / ${row.coresBusy.postgres.toFixed(2)} / ${row.coresBusy.bench.toFixed(2)})`
    : '-';

/** Why a missed scaling target was missed, from the cores the runs kept busy. */
function scalingWhy(result: GrowingFleetResult): string {
  const one = result.rows.find((row) => row.processes === 1);
  const four = result.rows.find((row) => row.processes === 4);
  if (one === undefined || four === undefined || !Number.isFinite(coresOf(one) + coresOf(four))) return '';
  return `: the machine has ${result.cores} cores, and 1 process already kept ${coresOf(one).toFixed(2)} of them busy (the \`serve\` process ${one.coresBusy.serve.toFixed(2)}, PostgreSQL ${one.coresBusy.postgres.toFixed(2)}, the fake model and the benchmark ${one.coresBusy.bench.toFixed(2)}); 3 times its work needs about ${(FLEET_SCALING_TARGET * coresOf(one)).toFixed(1)} cores, and 4 processes kept ${coresOf(four).toFixed(2)} busy`;
}

/** The growing-fleet section. */
export function renderGrowingFleetSection(result: GrowingFleetResult): string {
  const scalingVerdict = verdict(asPrinted(result.scaling), FLEET_SCALING_TARGET, 'at-least', ratioText);
  return marked('growing-fleet', [
    '## Growing fleet',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=growing-fleet\` reruns only this section). 1, 2 and 4 \`switchyard serve\` child processes (the built CLI, default settings, agent \`bench\`) on one throw-away PostgreSQL cluster (\`scripts/test-postgres.sh\`, fsync off), a fresh database per fleet size, the testkit's fake Responses server as the model: each task turn calls \`submit_result\` once with a valid summary, then answers with text (2 model requests). ${result.tasks} tasks are started at once through \`POST /v1/workflows\`, spread over the fleet, as ${result.workflows} workflows of at most 50 tasks: the control plane refuses a workflow of more than 50 tasks (\`MAX_WORKFLOW_TASKS\`), so one 400-task workflow cannot be started. Each process runs with \`serve.pollSeconds\` ${result.pollSeconds} (default 2) and 2 task turns at once per agent; a queue worker fetches the next job at once after a delivery and waits the interval only after an empty fetch (before that fix, pg-boss 10 waited it after every fetch: a process took at most 2 tasks per interval). Fleet sizes above the machine's cores compete for the same cores with each other, PostgreSQL and the fake model: on a 2-core machine the scaling ratio measures CPU contention more than the design. tasks/s: completed tasks over the time from the first POST to the last workflow's \`finishedAt\`. Queries: ${result.counting}.`,
    '',
    ...(result.skipped === undefined
      ? [
          '| processes | tasks completed | seconds | tasks/s | statements per task | pg-boss (`pgboss.`) | ours (`switchyard.`) | other (BEGIN, COMMIT, SET, locks) | cores busy: in all (`serve` processes / PostgreSQL / fake model and benchmark) |',
          '|---|---|---|---|---|---|---|---|---|',
          ...result.rows.map(
            (row) =>
              `| ${row.processes} | ${row.completed} | ${row.seconds.toFixed(1)} | ${perSecondText(row.tasksPerSecond)} | ${perTask(row.queriesPerTask)} | ${perTask(row.pgbossPerTask)} | ${perTask(row.switchyardPerTask)} | ${perTask(row.otherPerTask)} | ${coresText(row)} |`,
          ),
          '',
          ...result.rows.flatMap((row) =>
            row.problems.map((problem) => `- ${row.processes} process(es): ${problem}`),
          ),
          `Scaling, 4 processes over 1: ${scalingVerdict}${scalingVerdict.startsWith('missed') ? scalingWhy(result) : ''}.`,
        ]
      : [`**Skipped**: ${result.skipped}`]),
    '',
  ]);
}
