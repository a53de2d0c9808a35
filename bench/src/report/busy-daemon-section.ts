import { verdict } from '../daemon/daemon-stats';
import { BUSY_DAEMON_TARGETS, type BusyDaemonResult, type BusyDaemonRow } from '../suites/busy-daemon';
import { journalOverheadLines } from './journal-overhead-section';
import { asPrinted, marked, msTenth, msText, percentText, perSecondText, ratioText } from './report-format';

const mb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : '-');
const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(0)} KB` : '-');
const msWhole = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '-');

/**
 * Why a level's throughput stands where it does against the floor, from the level's own figures:
 * the daemon thread's CPU time a turn against the floor thread's, and how much of the level each
 * ran and waited for a core (throughput is the share a thread runs over its CPU time a turn).
 */
function floorWhy(row: BusyDaemonRow, backend: string): string {
  const { cpu } = row;
  if (!Number.isFinite(cpu.daemonThreadRunning)) return '';
  const server =
    backend === 'postgres' && Number.isFinite(cpu.postgresMs)
      ? `, the PostgreSQL server (${msTenth(cpu.postgresMs)} a turn)`
      : '';
  return `: the daemon's thread spent ${msTenth(cpu.daemonThreadMs)} of CPU a turn against the floor thread's ${msTenth(cpu.floorThreadMs)}, and ran ${percentText(cpu.daemonThreadRunning)} of the level against the floor's ${percentText(cpu.floorThreadRunning)}; it waited for a core ${percentText(cpu.daemonThreadWaiting)} of it (the floor ${percentText(cpu.floorThreadWaiting)}): the 2 cores are shared with its own other threads (${msTenth(cpu.daemonMs - cpu.daemonThreadMs)} a turn)${server} and the fake model`;
}

/** The busy-daemon section. */
export function renderBusyDaemonSection(result: BusyDaemonResult): string {
  const targets = BUSY_DAEMON_TARGETS;
  const ran = result.backends.filter((backend) => backend.skipped === undefined);
  const top = (backend: (typeof ran)[number]) => backend.rows.at(-1);
  const targetLines: string[] = [];
  for (const backend of ran) {
    const highest = top(backend);
    const floorTarget =
      backend.backend === 'postgres' ? targets.floorRatioPostgres : targets.floorRatioPglite;
    for (const row of backend.rows) {
      const floorVerdict = verdict(asPrinted(row.floorRatio), floorTarget, 'at-least', ratioText);
      targetLines.push(
        `- ${backend.backend}, ${row.turns} turns: turns/s vs the floor ${floorVerdict}${floorVerdict.startsWith('missed') ? floorWhy(row, backend.backend) : ''}`,
      );
    }
    if (highest !== undefined) {
      targetLines.push(
        `- ${backend.backend}, ${highest.turns} turns: \`/healthz\` p50 ${verdict(highest.healthP50Ms, targets.healthP50Ms, 'below', msWhole)}`,
      );
    }
    if (backend.backend === 'pglite') {
      targetLines.push(
        `- pglite: idle RSS ${verdict(backend.idleRssBytes, targets.idleRssPgliteBytes, 'below', mb)}`,
      );
    }
  }
  return marked('busy-daemon', [
    '## Busy daemon',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (a shared machine: the ratios, measured side by side in one run, are the figures to read; \`BENCH_SUITES=busy-daemon\` reruns only this section). One \`switchyard serve\` child process (the built CLI, \`apps/worker/dist/cli.js\`, in a fresh temporary folder with a \`switchyard.config.json\`: model \`fake-model\` without retries, the default categories, agent \`bench\`) per backend, its model the testkit's fake Responses server in the benchmark's process. Each API turn (\`POST /v1/turns\`) gets ${result.calls} model responses that each ask for one \`list_files\` (pattern \`*\`) of the agent's home (8 files), then a text answer: ${result.calls + 1} requests per turn. At each level all N turns are posted at once; the run ends when a \`/healthz\` answer given after the last \`202\` reports no running turn. Throughput: completed turns over the time from the first POST to the last recorded \`endedAt\`. Turn time: POST sent to the recorded \`endedAt\`; "added" is that less the fake model's own time for the script (its ${result.calls + 1} requests answered back to back to one openai-SDK client with no tool work: ${msText(result.modelMs)}). RSS is the child's \`VmRSS\` (\`/proc/PID/status\`) every 100 ms; per running turn = (peak during the run - RSS just before it) / the most turns running at once (from the turn records' \`createdAt\` and \`endedAt\`). Event-loop delay: Node's \`monitorEventLoopDelay\` (10 ms resolution, taken off each sample) preloaded into the daemon with \`node --import\` (the daemon's own code unchanged), started over as the level starts and read when it ends. \`/healthz\` is polled every 50 ms during the run (one request at a time), what a liveness probe sees (a stalled answer is one sample however long it stalls, so its p50 leans to the calm moments: read the max beside it), on the API's port and, the same way beside it, on the daemon's health listener (\`serve.healthPort\`, a port of its own that answers \`/healthz\` only). CPU: user plus system time from \`/proc\` over the level, per completed turn, of the daemon's process (every thread: libuv's pool, V8's helpers, PGlite's thread) and of its main thread, of the floor's process and main thread over the floor's own level, and of the PostgreSQL server (the postmaster and its children) over the daemon's level; how each main thread spent its level's wall time (first POST to the last recorded end; the floor's own level) from \`/proc/PID/task/PID/schedstat\`: running on a core, or ready to run and waiting for one (the rest it waited on I/O). **The floor**: the same N turns through the bench's bare openai-SDK loop (\`runBareLoop\`) in a process of its own that lives as long as the daemon (a warm-up turn before its first level, as the daemon gets one, so both reach each level with the same history), against the same fake model with the daemon's own \`tools\` array (so requests carry the same bytes), each \`list_files\` answered by \`readdir\` of the same home; run just before the daemon's level${result.repeats === 1 ? '' : ` or just after it: each level runs ${result.repeats} times, floor and daemon in alternating order (floor first, then daemon first, ...); a row is the run whose ratio to the floor is the median (the lower middle of an even count), and "each run" lists every run's ratio in the order they ran (runs of one build can differ by several tenths on 2 shared cores: the median is the figure to read)`}. PostgreSQL is a throw-away cluster started by \`scripts/test-postgres.sh\` on a free port (fsync off).`,
    '',
    ...result.backends
      .filter((backend) => backend.skipped !== undefined)
      .map((backend) => `- **${backend.backend} skipped**: ${backend.skipped}`),
    '| backend | idle RSS | start-up | one turn alone |',
    '|---|---|---|---|',
    ...ran.map(
      (backend) =>
        `| ${backend.backend} | ${mb(backend.idleRssBytes)} | ${msWhole(backend.startMs)} | ${msWhole(backend.oneTurnMs)} |`,
    ),
    '',
    '| backend | turns at once | completed | turns/s | floor turns/s | vs floor | each run | turn p50 / p99 | added p50 / p99 | floor added p50 / p99 | RSS per running turn (peak) | most running | `/healthz` p50 / p99 / max (samples) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...ran.flatMap((backend) =>
      backend.rows.map(
        (row) =>
          `| ${backend.backend} | ${row.turns} | ${row.completed} | ${perSecondText(row.turnsPerSecond)} | ${perSecondText(row.floorTurnsPerSecond)} | ${ratioText(row.floorRatio)} | ${row.runRatios.map(ratioText).join(', ')} | ${msWhole(row.latency.p50)} / ${msWhole(row.latency.p99)} | ${msWhole(row.latency.addedP50)} / ${msWhole(row.latency.addedP99)} | ${msWhole(row.floorLatency.addedP50)} / ${msWhole(row.floorLatency.addedP99)} | ${kb(row.rssPerTurnBytes)} (${mb(row.peakRssBytes)}) | ${row.mostRunning} | ${msWhole(row.healthP50Ms)} / ${msWhole(row.healthP99Ms)} / ${msWhole(row.healthMaxMs)} (${row.healthSamples}) |`,
      ),
    ),
    '',
    'Where the time went, per completed turn (the same runs as the rows above):',
    '',
    '| backend | turns at once | event-loop delay p50 / p99 / max | `/healthz` on `serve.healthPort` p50 / p99 / max (samples) | daemon CPU a turn: process (main thread) | daemon thread: running / waiting for a core | floor CPU a turn: process (main thread) | floor thread: running / waiting for a core | PostgreSQL server CPU a turn |',
    '|---|---|---|---|---|---|---|---|---|',
    ...ran.flatMap((backend) =>
      backend.rows.map(
        ({ turns, loopDelay, healthPort, cpu }) =>
          `| ${backend.backend} | ${turns} | ${msWhole(loopDelay.p50Ms)} / ${msWhole(loopDelay.p99Ms)} / ${msWhole(loopDelay.maxMs)} | ${msWhole(healthPort.p50Ms)} / ${msWhole(healthPort.p99Ms)} / ${msWhole(healthPort.maxMs)} (${healthPort.samples}) | ${msTenth(cpu.daemonMs)} (${msTenth(cpu.daemonThreadMs)}) | ${percentText(cpu.daemonThreadRunning)} / ${percentText(cpu.daemonThreadWaiting)} | ${msTenth(cpu.floorMs)} (${msTenth(cpu.floorThreadMs)}) | ${percentText(cpu.floorThreadRunning)} / ${percentText(cpu.floorThreadWaiting)} | ${msTenth(cpu.postgresMs)} |`,
      ),
    ),
    '',
    ...ran.flatMap((backend) =>
      backend.rows.flatMap((row) =>
        row.problems.map((problem) => `- ${backend.backend}, ${row.turns} turns: ${problem}`),
      ),
    ),
    'Targets (issue 23):',
    '',
    ...targetLines,
    '',
    ...journalOverheadLines(result),
  ]);
}
