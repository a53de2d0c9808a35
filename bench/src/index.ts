// Runs the benchmark suites, then rewrites RESULTS.md (and results/overhead.svg with the overhead
// suite). BENCH_SUITES=tool-stall,schema-bytes (or --suites=...) runs only those suites and replaces
// only their sections of RESULTS.md; without it every suite runs and the whole file is rewritten.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderLadderSection } from './report/argument-ladder-section';
import { renderBrainRecallSection } from './report/brain-recall-section';
import { renderBusyDaemonSection } from './report/busy-daemon-section';
import { renderChaosSection } from './report/chaos-section';
import { renderGrowingFleetSection } from './report/growing-fleet-section';
import { renderOverheadSection } from './report/overhead-section';
import { overheadSvg } from './report/overhead-svg';
import { renderParallelSection } from './report/parallel-batch-section';
import { renderRequestBurstSection } from './report/request-burst-section';
import { renderSchemaSection } from './report/schema-bytes-section';
import { renderStalledReadersSection } from './report/stalled-readers-section';
import { renderStreamedTextSection } from './report/streamed-text-section';
import { renderStrictCoverageSection } from './report/strict-coverage-section';
import { SUITE_NAMES, type SuiteName } from './report/suite-names';
import { renderTestSuiteSection } from './report/test-suite-section';
import { renderToolStallSection } from './report/tool-stall-section';
import { renderTurnsInFlightSection } from './report/turns-in-flight-section';
import { updateSections } from './report/update-sections';
import { renderResults } from './report/write-results';
import { aiSdkRuntime } from './runtimes/ai-sdk-runtime';
import { openaiAgentsRuntime } from './runtimes/openai-agents-runtime';
import { openaiSdkLoopRuntime } from './runtimes/openai-sdk-loop-runtime';
import { piAgentCoreRuntime } from './runtimes/pi-agent-core-runtime';
import { switchyardOtelRuntime, switchyardRuntime } from './runtimes/switchyard-runtime';
import { createComputerStallCases } from './stall/computer-cases';
import { createWebStallCases } from './stall/web-cases';
import { argumentLadder } from './suites/argument-ladder';
import { brainRecall } from './suites/brain-recall';
import { busyDaemon } from './suites/busy-daemon';
import { chaos } from './suites/chaos';
import { growingFleet } from './suites/growing-fleet';
import { loopOverhead } from './suites/loop-overhead';
import { parallelBatch } from './suites/parallel-batch';
import { requestBurst } from './suites/request-burst';
import { schemaBytes } from './suites/schema-bytes';
import { stalledReaders } from './suites/stalled-readers';
import { streamedText } from './suites/streamed-text';
import { strictCoverage } from './suites/strict-coverage';
import { testSuite } from './suites/test-suite';
import { toolStall } from './suites/tool-stall';
import { turnsInFlight } from './suites/turns-in-flight';

function selectedSuites(): ReadonlySet<SuiteName> | undefined {
  const argument = process.argv.find((value) => value.startsWith('--suites='))?.slice('--suites='.length);
  const list = argument ?? process.env.BENCH_SUITES;
  if (list === undefined || list.trim() === '') return undefined;
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SUITE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_SUITES: unknown suite ${unknown.join(', ')}; known: ${SUITE_NAMES.join(', ')}`);
  }
  return new Set(names as SuiteName[]);
}

const started = performance.now();
const selected = selectedSuites();
const runs = (name: SuiteName) => selected === undefined || selected.has(name);
const peers = [switchyardRuntime, aiSdkRuntime, openaiAgentsRuntime, piAgentCoreRuntime];

// The turn benchmark also runs Switchyard with an OpenTelemetry SDK installed, beside the default
// (the API alone), so the cost of telemetry is measured in the same interleaved rounds.
const overhead = runs('loop-overhead')
  ? await loopOverhead([switchyardRuntime, switchyardOtelRuntime, ...peers.slice(1)], openaiSdkLoopRuntime)
  : undefined;
const parallel = runs('parallel-batch') ? await parallelBatch([openaiSdkLoopRuntime, ...peers]) : undefined;
const schemas = runs('schema-bytes') ? await schemaBytes() : undefined;
const ladder = runs('argument-ladder') ? argumentLadder() : undefined;
const coverage = runs('strict-coverage') ? strictCoverage() : undefined;
let stall: Awaited<ReturnType<typeof toolStall>> | undefined;
if (runs('tool-stall')) {
  const sets = [await createComputerStallCases(), createWebStallCases()];
  try {
    stall = await toolStall(sets, { runs: Number(process.env.BENCH_STALL_RUNS ?? 3) });
  } finally {
    await Promise.all(sets.map((set) => set.close()));
  }
}
const daemon = runs('busy-daemon')
  ? await busyDaemon({
      ...(process.env.BENCH_DAEMON_PROFILE === undefined
        ? {}
        : { nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_DAEMON_PROFILE}`] }),
      ...(process.env.BENCH_DAEMON_LEVELS === undefined
        ? {}
        : { levels: process.env.BENCH_DAEMON_LEVELS.split(',').map(Number) }),
      ...(process.env.BENCH_DAEMON_REPEATS === undefined
        ? {}
        : { repeats: Number(process.env.BENCH_DAEMON_REPEATS) }),
    })
  : undefined;
const fleet = runs('growing-fleet') ? await growingFleet() : undefined;
const burst = runs('request-burst') ? await requestBurst() : undefined;
const inFlight = runs('turns-in-flight')
  ? await turnsInFlight({
      ...(process.env.BENCH_FLIGHT_LEVELS === undefined
        ? {}
        : { levels: process.env.BENCH_FLIGHT_LEVELS.split(',').map(Number) }),
      ...(process.env.BENCH_FLIGHT_BACKENDS === undefined
        ? {}
        : { backends: process.env.BENCH_FLIGHT_BACKENDS.split(',') as Array<'pglite' | 'postgres'> }),
      ...(process.env.BENCH_DAEMON_PROFILE === undefined
        ? {}
        : { nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_DAEMON_PROFILE}`] }),
    })
  : undefined;
const readers = runs('stalled-readers') ? await stalledReaders() : undefined;
const streamed = runs('streamed-text') ? await streamedText() : undefined;
const suite = runs('test-suite') ? testSuite(fileURLToPath(new URL('../..', import.meta.url))) : undefined;
const recall = runs('brain-recall')
  ? await brainRecall(
      process.env.BENCH_BRAIN_PAGES === undefined ? {} : { pages: Number(process.env.BENCH_BRAIN_PAGES) },
    )
  : undefined;
const chaosKills =
  process.argv.find((value) => value.startsWith('--chaos-kills='))?.slice('--chaos-kills='.length) ??
  process.env.BENCH_CHAOS_KILLS;
const chaosRun = runs('chaos')
  ? await chaos({
      ...(chaosKills === undefined ? {} : { kills: Number(chaosKills) }),
      ...(process.env.BENCH_CHAOS_MINUTES === undefined
        ? {}
        : { minutes: Number(process.env.BENCH_CHAOS_MINUTES) }),
    })
  : undefined;
const seconds = (performance.now() - started) / 1000;

const resultsFile = new URL('../RESULTS.md', import.meta.url);
if (overhead !== undefined) {
  const resultsDir = new URL('../results/', import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    new URL('overhead.svg', resultsDir),
    overheadSvg(
      overhead.rows.map((row) => ({
        name: `${row.name} (${row.variant})`,
        cpu: row.cpuToBare,
        wall: row.wallToBare,
      })),
      `Agent turn overhead vs a bare openai SDK loop, tools composed per turn (${overhead.iterations} iterations, ${overhead.rounds} rounds)`,
    ),
  );
}
if (
  selected === undefined &&
  overhead !== undefined &&
  parallel !== undefined &&
  schemas !== undefined &&
  ladder !== undefined &&
  stall !== undefined &&
  coverage !== undefined &&
  daemon !== undefined &&
  fleet !== undefined &&
  burst !== undefined &&
  inFlight !== undefined &&
  readers !== undefined &&
  streamed !== undefined &&
  suite !== undefined &&
  recall !== undefined &&
  chaosRun !== undefined
) {
  writeFileSync(
    resultsFile,
    renderResults({
      overhead,
      parallel,
      schemas,
      ladder,
      toolStall: stall,
      strictCoverage: coverage,
      busyDaemon: daemon,
      growingFleet: fleet,
      requestBurst: burst,
      turnsInFlight: inFlight,
      stalledReaders: readers,
      streamedText: streamed,
      testSuite: suite,
      brainRecall: recall,
      chaos: chaosRun,
      seconds,
    }),
  );
} else {
  const existing = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  writeFileSync(
    resultsFile,
    updateSections(existing, {
      ...(overhead === undefined ? {} : { 'loop-overhead': renderOverheadSection(overhead) }),
      ...(parallel === undefined ? {} : { 'parallel-batch': renderParallelSection(parallel) }),
      ...(schemas === undefined ? {} : { 'schema-bytes': renderSchemaSection(schemas) }),
      ...(ladder === undefined ? {} : { 'argument-ladder': renderLadderSection(ladder) }),
      ...(stall === undefined ? {} : { 'tool-stall': renderToolStallSection(stall) }),
      ...(coverage === undefined ? {} : { 'strict-coverage': renderStrictCoverageSection(coverage) }),
      ...(daemon === undefined ? {} : { 'busy-daemon': renderBusyDaemonSection(daemon) }),
      ...(fleet === undefined ? {} : { 'growing-fleet': renderGrowingFleetSection(fleet) }),
      ...(burst === undefined ? {} : { 'request-burst': renderRequestBurstSection(burst) }),
      ...(inFlight === undefined ? {} : { 'turns-in-flight': renderTurnsInFlightSection(inFlight) }),
      ...(readers === undefined ? {} : { 'stalled-readers': renderStalledReadersSection(readers) }),
      ...(streamed === undefined ? {} : { 'streamed-text': renderStreamedTextSection(streamed) }),
      ...(suite === undefined ? {} : { 'test-suite': renderTestSuiteSection(suite) }),
      ...(recall === undefined ? {} : { 'brain-recall': renderBrainRecallSection(recall) }),
      ...(chaosRun === undefined ? {} : { chaos: renderChaosSection(chaosRun) }),
    }),
  );
}
process.stdout.write(
  `\nWrote bench/RESULTS.md${overhead === undefined ? '' : ' and bench/results/overhead.svg'} (${seconds.toFixed(0)} s)\n`,
);
