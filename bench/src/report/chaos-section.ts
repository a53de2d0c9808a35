import type { ChaosResult } from '../suites/chaos';
import { marked } from './report-format';

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '-');

/** The chaos section of RESULTS.md. */
export function renderChaosSection(result: ChaosResult): string {
  const intro = `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=chaos\` reruns only this section; \`BENCH_CHAOS_KILLS=N\` injects N kills instead of 1,000). ${result.processes} \`switchyard serve\` processes (the built CLI) on a throw-away PostgreSQL cluster, each on its own fake Responses server (so every model request says which process sent it), ${result.inFlight} units kept running: API turns (\`POST /v1/turns\` with an \`Idempotency-Key\`), background jobs, one-shot schedule fires and workflows of two tasks. Each unit's turn makes 3 \`run_command\` calls (each sleeps 0, 0.3 or 0.8 s, then appends \`<unit>/<step> <ms>\` to a ledger file in the agent's home), then answers (a task with \`submit_result\`); only API turns and fires have \`run_command\` (a task's or job's turn has the task-turn tools, so its calls are unknown-tool results and it checks the replay of model steps, not side effects). The processes run with a 40 s queue expiry (turn limit 30 s) and retry a unit at once, up to 20 times. A kill every 0.2 to 1 s: at a random moment of a random process, or aimed in turn just after a model answer, during a call's sleep, and right after a call's ledger line appears (before its output is recorded); the killed process is started again at once. Duplicates are counted from the ledger and classed by the journals (\`controlPlane.journals.read\`); repeated model requests are requests for a step after the journal recorded a response for it; a unit is lost when it has no completed or failed record 5 minutes after the last kill. Resume time: from a kill to the next model request or call of each unit in flight on the killed process.`;
  if ('skipped' in result.figures) {
    return marked('chaos', [
      '## Chaos (durable turns)',
      '',
      intro,
      '',
      `Skipped: ${result.figures.skipped}.`,
      '',
    ]);
  }
  const figures = result.figures;
  const rows = [
    ['calls with a recorded output executed again (goal 0)', String(figures.recordedOutputRunAgain)],
    ['calls never recorded executed again (goal 0)', String(figures.unrecordedRunAgain)],
    ['model requests repeated for a recorded step (goal 0)', String(figures.repeatedRequests)],
    [
      'in-doubt calls run again (goal 0; `run_command` is neither read-only nor idempotent)',
      String(figures.inDoubtRunAgain),
    ],
    ['units lost (goal 0)', String(figures.unitsLost)],
    [
      'kill to the resumed turn’s next step, p50 / p99 / max',
      `${ms(figures.resume.p50Ms)} / ${ms(figures.resume.p99Ms)} / ${ms(figures.resume.maxMs)} (${figures.resume.count} interrupted units)`,
    ],
  ];
  return marked('chaos', [
    '## Chaos (durable turns)',
    '',
    intro,
    '',
    `${figures.kills} kills in ${figures.seconds.toFixed(0)} s, ${figures.processesStarted} processes started, ${figures.units} units (${figures.unposted} API turns no process accepted).`,
    '',
    '| figure | value |',
    '|---|---|',
    ...rows.map(([name, value]) => `| ${name} | ${value} |`),
    '',
    `Kills by aim: ${Object.entries(figures.aims)
      .map(([aim, count]) => `${aim} ${count}`)
      .join(', ')}. Units in flight on a killed process, by where they were: ${Object.entries(figures.moments)
      .map(([moment, count]) => `${moment} ${count}`)
      .join(', ')}.`,
    '',
    ...(figures.problems.length === 0
      ? []
      : ['Problems:', '', ...figures.problems.slice(0, 40).map((problem) => `- ${problem}`), '']),
  ]);
}
