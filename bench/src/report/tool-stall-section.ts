import { STALL_TARGET_MS, type ToolStallResult } from '../suites/tool-stall';
import { marked, msText } from './report-format';

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The tool-stall section. */
export function renderToolStallSection(stall: ToolStallResult): string {
  const tools = stall.rows.filter((row) => row.category !== 'control');
  const over = tools.filter((row) => row.maxDelayMs > STALL_TARGET_MS);
  const delay = (value: number) => (value > STALL_TARGET_MS ? `**${msText(value)}**` : msText(value));
  return marked('tool-stall', [
    '## Tool stall',
    '',
    `Measured ${stall.date} on Node ${stall.node}, ${stall.cores} cores, load average ${stall.load[0].toFixed(1)} before and ${stall.load[1].toFixed(1)} after (\`BENCH_SUITES=tool-stall\` reruns only this section). The worst event-loop delay while one tool call runs on an adversarial input (\`perf_hooks.monitorEventLoopDelay\`, 10 ms resolution; and the longest gap between two runs of a 5 ms interval timer), beside the call's own time. One worker process runs many agents on one event loop: a call may take long, but must not hold the loop. Target: no delay above ${STALL_TARGET_MS} ms. ${stall.runs} runs per case: the worst delay, the median of the runs' worst delays, and the median call time. The control rows call no tool: their delay is the machine's own noise at the time (waiting for a core on a loaded machine counts as delay). The column "most main-thread run time in one gap" (Linux schedstat of the main thread) separates the two: it is how long the process actually worked between two timer runs; a gap much longer than it was spent waiting for a core.`,
    '',
    ...stall.corpora.map((corpus) => `- Corpus (${corpus.category}): ${corpus.corpus}.`),
    '',
    '| tool | case | call | slowest call | worst loop delay | median loop delay | worst 5 ms-timer gap | most main-thread run time in one gap | result |',
    '|---|---|---|---|---|---|---|---|---|',
    ...stall.rows.map(
      (row) =>
        `| ${row.tool} | ${cell(row.name)} | ${msText(row.callMs)} | ${msText(row.maxCallMs)} | ${delay(row.maxDelayMs)} | ${msText(row.medianDelayMs)} | ${msText(row.maxGapMs)} | ${row.maxBusyMs === undefined ? '-' : msText(row.maxBusyMs)} | ${cell(row.outcome)} |`,
    ),
    '',
    over.length === 0
      ? `Every case stayed within the ${STALL_TARGET_MS} ms target.`
      : `${over.length} of ${tools.length} cases went over the ${STALL_TARGET_MS} ms target: ${over.map((row) => `${row.tool} (${row.name})`).join('; ')}.`,
    '',
  ]);
}
