import os from 'node:os';
import { verdict } from '../daemon/daemon-stats';
import { TEST_SUITE_TARGET_SECONDS, type TestSuiteResult } from '../suites/test-suite';
import { marked } from './report-format';

const loadText = (load: number | null | undefined) => (typeof load === 'number' ? load.toFixed(2) : '-');

const minutes = (seconds: number) => `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;

/** The test-suite section. */
export function renderTestSuiteSection(result: TestSuiteResult, cores = os.cpus().length): string {
  return marked('test-suite', [
    '## Test suite',
    '',
    `The README's test command (\`pnpm test\`: build, type-check, lint, package checks and every package's tests through turbo: every build first, then the worker's tests and the worker's and console's type checks and lints in a lane of their own, beside everything else two tasks at once and then the console's browser tests), cold: no task replayed from turbo's cache. Read from the record the script writes of each run (its start and end, the Node version, the cores, and the 1-minute load average before the run, what else the machine was doing, and after it, mostly the run's own load) and the summaries of the turbo runs within it (\`--summarize\`; \`.turbo/runs/\`): the newest two cold runs of the whole command (\`.ci/run\` runs it on Node 20, then on Node 24). This suite does not run the tests itself (\`BENCH_SUITES=test-suite\` rewrites only this section). A task is listed with its time and, in brackets, when it started after the run's start. This machine: ${cores} cores. Target: within ${TEST_SUITE_TARGET_SECONDS / 60} minutes on 2 cores.`,
    '',
    ...(result.skipped === undefined
      ? [
          '| started | Node | cores | load before / after | wall time | tasks | result | target | longest tasks |',
          '|---|---|---|---|---|---|---|---|---|',
          ...result.runs.map(
            (run) =>
              `| ${run.date} | ${run.machine.node} | ${run.machine.cores ?? '-'} | ${loadText(run.machine.loadBefore)} / ${loadText(run.machine.loadAfter)} | ${minutes(run.seconds)} | ${run.tasks} (${run.cached} cached) | ${run.passed ? 'passed' : 'failed'} | ${verdict(run.seconds, TEST_SUITE_TARGET_SECONDS, 'below', minutes)} | ${run.longest
                .slice(0, 5)
                .map(
                  (task) =>
                    `\`${task.id}\` ${task.seconds.toFixed(0)} s (at ${task.startedAfter.toFixed(0)} s)`,
                )
                .join(', ')} |`,
          ),
        ]
      : [`**Skipped**: ${result.skipped}`]),
    '',
  ]);
}
