import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verdict } from '../daemon/daemon-stats';
import type { LadderScore } from '../ladder/score-ladder';
import { median } from '../measure';
import type { ArgumentLadderResult } from '../suites/argument-ladder';
import type { BrainRecallResult } from '../suites/brain-recall';
import { BUSY_DAEMON_TARGETS, type BusyDaemonResult, type BusyDaemonRow } from '../suites/busy-daemon';
import { FLEET_SCALING_TARGET, type GrowingFleetResult, type GrowingFleetRow } from '../suites/growing-fleet';
import { LOOP_OVERHEAD_TARGETS, type OverheadResult, type OverheadRow } from '../suites/loop-overhead';
import type { ParallelBatchRow } from '../suites/parallel-batch';
import type { RequestBurstResult } from '../suites/request-burst';
import type { SchemaBytesResult } from '../suites/schema-bytes';
import {
  addedByReaders,
  growthOf,
  runsOf,
  STALLED_READERS_TARGET_BYTES,
  type StalledReadersResult,
} from '../suites/stalled-readers';
import type { StrictCoverageResult } from '../suites/strict-coverage';
import { TEST_SUITE_TARGET_SECONDS, type TestSuiteResult } from '../suites/test-suite';
import { STALL_TARGET_MS, type ToolStallResult } from '../suites/tool-stall';
import { renderBrainRecallSection } from './brain-recall-section';
import { renderRequestBurstSection } from './request-burst-section';

/** Everything one `pnpm bench` run measured. */
export interface BenchResults {
  overhead: OverheadResult;
  parallel: ParallelBatchRow[];
  schemas: SchemaBytesResult;
  ladder: ArgumentLadderResult;
  toolStall: ToolStallResult;
  /** The strict-coverage suite. */
  strictCoverage: StrictCoverageResult;
  /** The busy-daemon suite. */
  busyDaemon: BusyDaemonResult;
  /** The growing-fleet suite. */
  growingFleet: GrowingFleetResult;
  /** The request-burst suite. */
  requestBurst: RequestBurstResult;
  /** The test-suite section (read from turbo's run summaries). */
  testSuite: TestSuiteResult;
  /** The stalled-readers suite. */
  stalledReaders: StalledReadersResult;
  /** The Brain recall suite. */
  brainRecall: BrainRecallResult;
  /** Seconds the whole run took. */
  seconds: number;
}

const PACKAGES = [
  'openai',
  'ai',
  '@ai-sdk/openai',
  '@openai/agents',
  '@mariozechner/pi-agent-core',
  'jsonrepair',
  'zod',
];

function version(name: string): string {
  try {
    const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The version of `dependency` as pnpm installed it for the last of `chain` (each a dependency of the previous). */
function nestedVersion(chain: readonly string[], dependency: string): string {
  try {
    let modules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
    for (const name of chain) {
      const folder = realpathSync(path.join(modules, name));
      modules = path.resolve(folder, ...Array<string>(name.split('/').length).fill('..'));
    }
    return (
      JSON.parse(readFileSync(path.join(modules, dependency, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
}

const x = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');
const msText = (value: number) => `${value.toFixed(2)} ms`;
const kib = (value: number) => (value >= 10_000 ? `${(value / 1024).toFixed(1)} KiB` : `${value} B`);

function ladderRow(score: LadderScore): string {
  const c = score.counts;
  return `| ${score.policy} | ${c['correct-value']} | ${c['correct-rejection']} | **${c['silent-wrong-value']}** | ${c['missed-repair']} |`;
}

/** The suites, in the order their sections appear in RESULTS.md. */
export const SUITE_NAMES = [
  'loop-overhead',
  'parallel-batch',
  'schema-bytes',
  'argument-ladder',
  'tool-stall',
  'strict-coverage',
  'busy-daemon',
  'growing-fleet',
  'request-burst',
  'stalled-readers',
  'test-suite',
  'brain-recall',
] as const;

/** A suite that writes a section of RESULTS.md. */
export type SuiteName = (typeof SUITE_NAMES)[number];

// How each section began before sections were marked, so a partial run can replace it in a file
// written by an older full run.
const SECTION_HEADINGS: Record<SuiteName, string> = {
  'loop-overhead': '## Agent turn overhead',
  'parallel-batch': '## Parallel batch',
  'schema-bytes': '## Tool-schema bytes per request',
  'argument-ladder': '## Argument ladder',
  'tool-stall': '## Tool stall',
  'strict-coverage': '## Strict coverage',
  'busy-daemon': '## Busy daemon',
  'growing-fleet': '## Growing fleet',
  'request-burst': '## Request burst',
  'stalled-readers': '## Stalled readers',
  'test-suite': '## Test suite',
  'brain-recall': '## Brain recall',
};

const marked = (name: SuiteName, lines: readonly string[]) =>
  [`<!-- bench:${name} -->`, ...lines, `<!-- /bench:${name} -->`].join('\n');

/**
 * A ratio as the tables print it (two decimals): every ratio target is judged on this, so a row
 * reading 0.75x meets a 0.75x target and no verdict says "missed by 0.00x".
 */
const asPrinted = (ratio: number) => Math.round(ratio * 100) / 100;

/** Switchyard's overhead targets, each met or missed by how much (ratios as printed). */
function overheadTargetLines(overhead: OverheadResult): string[] {
  const targets = LOOP_OVERHEAD_TARGETS;
  const ratio = (variant: 'module' | 'fresh', key: 'cpuToBare' | 'firstRequestToBare') => {
    const row = overhead.rows.find(
      (candidate) => candidate.name === 'switchyard' && candidate.variant === variant,
    );
    return row === undefined ? Number.NaN : asPrinted(row[key]);
  };
  return [
    'Targets (issue 23), Switchyard against the bare loop of the same variant:',
    '',
    `- module-level schemas, the whole turn's CPU: ${verdict(ratio('module', 'cpuToBare'), targets.cpuModule, 'at-most', x)}`,
    `- fresh schemas, the whole turn's CPU: ${verdict(ratio('fresh', 'cpuToBare'), targets.cpuFresh, 'at-most', x)}`,
    `- fresh schemas, the time to the first request: ${verdict(ratio('fresh', 'firstRequestToBare'), targets.firstRequestFresh, 'at-most', x)}${firstRequestParts(overhead)}`,
    '',
  ];
}

/**
 * Where a fresh turn's time before its first request went, Switchyard beside the bare loop (medians
 * of each run's marks): the schemas created (the same work for both), the tools defined and their
 * schemas converted, then the loop up to the request reaching the server. Empty without the marks.
 */
function firstRequestParts(overhead: OverheadResult): string {
  const fresh = (name: string) => overhead.rows.find((row) => row.name === name && row.variant === 'fresh');
  const switchyard = fresh('switchyard');
  const bare = fresh(overhead.baseline);
  if (switchyard === undefined || bare === undefined) return '';
  const parts = (row: OverheadRow) => ({
    schemas: row.schemasCreated,
    define: row.toolsDefined - row.schemasCreated,
    request: row.firstRequest - row.toolsDefined,
  });
  const mine = parts(switchyard);
  const theirs = parts(bare);
  if (![...Object.values(mine), ...Object.values(theirs)].every(Number.isFinite)) return '';
  return `; medians: the ${overhead.tools} Zod schemas created ${msText(mine.schemas)} into the turn (the bare loop: ${msText(theirs.schemas)}), the tools defined ${msText(mine.define)} later (zod's input-side conversion, then the strict projection; the bare loop's \`z.toJSONSchema\`, output side, no projection: ${msText(theirs.define)}), the first request at the server ${msText(mine.request)} after that (${msText(theirs.request)})`;
}

/** The overhead section. */
export function renderOverheadSection(overhead: OverheadResult): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(', ');
  return marked('loop-overhead', [
    `## Agent turn overhead`,
    '',
    `A scripted turn of ${overhead.iterations} model requests against the testkit's fake Responses server: the first ${overhead.iterations - 1} responses each ask for a parallel batch of ${overhead.batch} calls, the last answers with text. ${overhead.tools} distinct tools, each with its own realistic Zod schema (strings with limits, enums, optional fields, nested objects, arrays, bounded numbers), and every runtime **composes its tools inside the timed turn**, converting and validating as its docs show. Two variants: \`module\`, the Zod schemas created once at module level and the tool objects inside each turn (the usual category); \`fresh\`, the Zod schemas themselves created inside each turn (generated tools, MCP). Each runtime and variant first ran one turn against a recording server and had to show ${overhead.iterations} requests, each carrying every earlier call's output with the text its tool returned (${(overhead.iterations - 1) * overhead.batch} executions); then all of them ran ${overhead.rounds} interleaved rounds (in balanced orders: each contender right after each other equally often) against one server. Ratios are medians of per-round ratios against the bare loop (or Switchyard) **of the same variant**; "first request" is the time from the turn's start to its first request reaching the fake server (tool definition and schema conversion happen before it). Per-iteration overhead is (median - bare median) / ${overhead.iterations}. CPU time is the process's (runtime plus fake server), steadier than wall time on a busy machine. \`switchyard\` has OpenTelemetry through the API alone (no SDK installed); \`switchyard + OTel SDK\` records every span (batch processor, an exporter that discards) and every metric (a meter provider with a reader). Load average (1, 5, 15 min): ${load(overhead.load.before)} when the rounds began, ${load(overhead.load.after)} when they ended (2 cores).`,
    '',
    '| runtime | schemas | wall / turn | CPU / turn | first request | wall vs bare | CPU vs bare | first request vs bare | wall vs Switchyard | CPU vs Switchyard | wall overhead / iteration | CPU overhead / iteration |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...overhead.rows.map(
      (row) =>
        `| ${row.name} | ${row.variant} | ${msText(row.wall)} | ${msText(row.cpu)} | ${msText(row.firstRequest)} | ${x(row.wallToBare)} | ${x(row.cpuToBare)} | ${x(row.firstRequestToBare)} | ${x(row.wallToSwitchyard)} | ${x(row.cpuToSwitchyard)} | ${msText(row.wallPerIteration)} | ${msText(row.cpuPerIteration)} |`,
    ),
    '',
    ...(overhead.failed.length === 0
      ? ['Every runtime passed the recorded-turn check in both variants.']
      : overhead.failed.map(
          (failure) =>
            `- **${failure.name} (${failure.variant}) failed the turn check** (not timed): ${failure.problems.slice(0, 3).join('; ')}`,
        )),
    '',
    ...overheadTargetLines(overhead),
    '![Overhead ratios](results/overhead.svg)',
    '',
  ]);
}

/** The parallel-batch section. */
export function renderParallelSection(parallel: readonly ParallelBatchRow[]): string {
  return marked('parallel-batch', [
    '## Parallel batch',
    '',
    'One response with 8 calls to 8 tools that each wait 100 ms, then a text answer: the whole turn (two model requests and the batch), median of 5 turns, and the most calls executing at once (counted inside the tools). Concurrent execution takes about 100 ms plus the requests; sequential takes 800 ms.',
    '',
    '| runtime | turn | most calls at once |',
    '|---|---|---|',
    ...parallel.map((row) => `| ${row.name} | ${msText(row.turn)} | ${row.maxInFlight} of 8 |`),
    '',
  ]);
}

/** The schema-bytes section. */
export function renderSchemaSection(schemas: SchemaBytesResult): string {
  const lines = [
    `## Tool-schema bytes per request (${schemas.tools} tools in ${schemas.namespaces} namespaces)`,
    '',
    'Bytes of the JSON `tools` array in the first request body each runtime actually sent to the fake server (same tools, same strict JSON Schemas).',
    '',
    '| runtime | declaration | `tools` entries | bytes | vs Switchyard eager |',
    '|---|---|---|---|---|',
  ];
  const eager = schemas.rows.find(
    (row) => row.runtime === 'switchyard' && row.variant.startsWith('eager'),
  )?.bytes;
  for (const row of schemas.rows)
    lines.push(
      `| ${row.runtime} | ${row.variant} | ${row.entries} | ${kib(row.bytes)} | ${eager ? `${((100 * row.bytes) / eager).toFixed(1)}%` : '-'} |`,
    );
  lines.push('', ...schemas.notes.map((note) => `- ${note}`), '');
  return marked('schema-bytes', lines);
}

/** The strict-coverage section. */
export function renderStrictCoverageSection(coverage: StrictCoverageResult): string {
  const total = (
    key: 'tools' | 'strictByDefault' | 'strictBefore' | 'strictAuto' | 'projectedWithMovedKeywords',
  ) => coverage.rows.reduce((sum, row) => sum + row[key], 0);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([key, count]) => `${key} (${count})`)
      .join('; ') || 'none';
  return marked('strict-coverage', [
    `## Strict coverage of real MCP tool schemas (${total('tools')} tools, ${coverage.rows.length} servers)`,
    '',
    "Corpus: `bench/fixtures/mcp-tool-schemas.json`, each server's `tools/list` read over stdio from the package installed from the npm registry (version below). *Default*: an MCP schema is sent unchanged, so non-strict (its manifest entry says `external schema sent unchanged`). *Before*: schemas `toStrictJSONSchema` could project before constraints moved into descriptions (a `minLength`, `maxLength`, `uniqueItems`, `minProperties` or `maxProperties` anywhere refused the schema; the same count as main's core gives on this corpus). *strict: 'auto'*: sent strict now, with the server's schema still validating every call.",
    '',
    "| server | version | tools | strict by default | projectable before | strict with `strict: 'auto'` | of which with moved keywords |",
    '|---|---|---|---|---|---|---|',
    ...coverage.rows.map(
      (row) =>
        `| ${row.server} | ${row.version} | ${row.tools} | ${row.strictByDefault} | ${row.strictBefore} | ${row.strictAuto} | ${row.projectedWithMovedKeywords} |`,
    ),
    `| **all** | | **${total('tools')}** | **${total('strictByDefault')}** | **${total('strictBefore')}** | **${total('strictAuto')}** | **${total('projectedWithMovedKeywords')}** |`,
    '',
    `- Moved into descriptions (keyword occurrences): ${list(coverage.moved)}.`,
    `- Still refused, with the reason stated in the manifest: ${list(coverage.refusals)}.`,
    `- Collecting one server's tools with \`strict: 'auto'\` (projection included, first collection): median ${coverage.collectMicroseconds.toFixed(0)} µs.`,
    '',
  ]);
}

/** The argument-ladder section. */
export function renderLadderSection(ladder: ArgumentLadderResult): string {
  const lines = [
    `## Argument ladder (${ladder.cases} cases, ${ladder.rejections} should be rejected)`,
    '',
    'Corpus: `bench/fixtures/malformed-arguments.json` (raw argument string, tool schema by name, finish reason, expected value or "reject"). A silent wrong value is a value returned that is not the expected one, or any value where rejection was expected: the tool would run on something the model did not mean. A safe rejection of repairable input is a rejection where a value was expected (the model gets an error and retries). jsonrepair is used as the whole policy: `jsonrepair`, `JSON.parse`, then the same Zod schema (it does not see the finish reason).',
    '',
    `Categories: ${Object.entries(ladder.categories)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}.`,
    '',
    '| policy | correct values | correct rejections | silent wrong values | safe rejections of repairable input |',
    '|---|---|---|---|---|',
    ...ladder.scores.map(ladderRow),
    '',
    "Expectations are judgments about what the model meant; a case whose expectation could be argued carries a `note` in the corpus. Switchyard's target is zero silent wrong values: any listed below for it is a finding about core's ladder or validation, reported here and not patched by the benchmark.",
    '',
  ];
  for (const score of ladder.scores) {
    lines.push(`Silent wrong values, ${score.policy}:`, '');
    if (score.silentWrong.length === 0) lines.push('- none', '');
    else
      lines.push(
        ...score.silentWrong.map(
          (wrong) =>
            `- \`${wrong.id}\`: \`${JSON.stringify(wrong.raw)}\` gave \`${JSON.stringify(wrong.got)}\`, expected ${wrong.expected === 'reject' ? 'a rejection' : `\`${JSON.stringify(wrong.expected)}\``}${wrong.note === undefined ? '' : ` (${wrong.note})`}`,
        ),
        '',
      );
    lines.push(
      `Rejected although repairable, ${score.policy}: ${score.missed.map((id) => `\`${id}\``).join(', ') || 'none'}.`,
      '',
    );
  }
  return marked('argument-ladder', lines);
}

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

const mb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : '-');
const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(0)} KB` : '-');
const msWhole = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '-');
const perSecondText = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)}/s` : '-');
const msTenth = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '-');
const percent = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(0)} %` : '-');

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
  return `: the daemon's thread spent ${msTenth(cpu.daemonThreadMs)} of CPU a turn against the floor thread's ${msTenth(cpu.floorThreadMs)}, and ran ${percent(cpu.daemonThreadRunning)} of the level against the floor's ${percent(cpu.floorThreadRunning)}; it waited for a core ${percent(cpu.daemonThreadWaiting)} of it (the floor ${percent(cpu.floorThreadWaiting)}): the 2 cores are shared with its own other threads (${msTenth(cpu.daemonMs - cpu.daemonThreadMs)} a turn)${server} and the fake model`;
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
      const floorVerdict = verdict(asPrinted(row.floorRatio), floorTarget, 'at-least', x);
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
          `| ${backend.backend} | ${row.turns} | ${row.completed} | ${perSecondText(row.turnsPerSecond)} | ${perSecondText(row.floorTurnsPerSecond)} | ${x(row.floorRatio)} | ${row.runRatios.map(x).join(', ')} | ${msWhole(row.latency.p50)} / ${msWhole(row.latency.p99)} | ${msWhole(row.latency.addedP50)} / ${msWhole(row.latency.addedP99)} | ${msWhole(row.floorLatency.addedP50)} / ${msWhole(row.floorLatency.addedP99)} | ${kb(row.rssPerTurnBytes)} (${mb(row.peakRssBytes)}) | ${row.mostRunning} | ${msWhole(row.healthP50Ms)} / ${msWhole(row.healthP99Ms)} / ${msWhole(row.healthMaxMs)} (${row.healthSamples}) |`,
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
          `| ${backend.backend} | ${turns} | ${msWhole(loopDelay.p50Ms)} / ${msWhole(loopDelay.p99Ms)} / ${msWhole(loopDelay.maxMs)} | ${msWhole(healthPort.p50Ms)} / ${msWhole(healthPort.p99Ms)} / ${msWhole(healthPort.maxMs)} (${healthPort.samples}) | ${msTenth(cpu.daemonMs)} (${msTenth(cpu.daemonThreadMs)}) | ${percent(cpu.daemonThreadRunning)} / ${percent(cpu.daemonThreadWaiting)} | ${msTenth(cpu.floorMs)} (${msTenth(cpu.floorThreadMs)}) | ${percent(cpu.floorThreadRunning)} / ${percent(cpu.floorThreadWaiting)} | ${msTenth(cpu.postgresMs)} |`,
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
  ]);
}

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
  const scalingVerdict = verdict(asPrinted(result.scaling), FLEET_SCALING_TARGET, 'at-least', x);
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

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const formatNumber = (value: number) => (Number.isFinite(value) ? value.toLocaleString('en-US') : '-');
const signedMegabytes = (bytes: number) => `${bytes < 0 ? '-' : '+'}${megabytes(Math.abs(bytes))}`;

/** The row of one kind of run (medians over its runs). */
function stalledReadersRow(result: StalledReadersResult, stalled: number, reading: boolean): string {
  const runs = runsOf(result, stalled, reading);
  const readers = stalled === 0 ? 'none' : `${stalled} stalled${reading ? ', 1 reading' : ''}`;
  const growths = runs.map(growthOf);
  const spread = (key: 'peak' | 'after') =>
    `${signedMegabytes(median(growths.map((growth) => growth[key])))} (${growths.map((growth) => signedMegabytes(growth[key])).join(', ')})`;
  const sum = (key: 'cutOffWithEvent' | 'closedByDaemon' | 'neverCutOff') =>
    runs.reduce((total, run) => total + run[key], 0);
  const cut =
    stalled === 0 ? '-' : `${sum('cutOffWithEvent')} / ${sum('closedByDaemon')} / ${sum('neverCutOff')}`;
  const fewest = Math.min(...runs.map((run) => run.readerDeltas));
  const readingText = reading
    ? `${formatNumber(fewest)} of ${formatNumber(result.turns * result.deltas)}${runs.some((run) => run.readerCutOff) ? ' (cut off)' : ''}`
    : '-';
  return `| ${readers} | ${runs.length} | ${Math.min(...runs.map((run) => run.completed))} of ${result.turns} | ${median(runs.map((run) => run.seconds)).toFixed(1)} | ${megabytes(median(runs.map((run) => run.rssBefore)))} | ${spread('peak')} | ${spread('after')} | ${signedMegabytes(median(growths.map((growth) => growth.live)))} | ${cut} | ${readingText} |`;
}

/** The stalled-readers section. */
export function renderStalledReadersSection(result: StalledReadersResult): string {
  const target = STALLED_READERS_TARGET_BYTES;
  const stalledCount = Math.max(0, ...result.runs.map((run) => run.stalledReaders));
  const measured =
    stalledCount > 0 && runsOf(result, 0, false).length > 0 && runsOf(result, stalledCount, false).length > 0;
  const added = addedByReaders(result);
  const whole = (key: 'peak' | 'after') =>
    median(runsOf(result, stalledCount, false).map((run) => growthOf(run)[key]));
  const kinds: Array<[number, boolean]> =
    stalledCount === 0
      ? [[0, false]]
      : [
          [0, false],
          [stalledCount, false],
          [stalledCount, true],
        ];
  return marked('stalled-readers', [
    '## Stalled readers',
    '',
    `Measured ${result.date} on Node ${result.node}, ${result.cores} cores, 1-minute load average ${result.load[0].toFixed(1)} before and ${result.load[1].toFixed(1)} after (\`BENCH_SUITES=stalled-readers\` reruns only this section). \`switchyard serve\` (the built CLI, embedded PGlite, default settings: an event stream holds at most 4 MiB for its reader, \`serve.maxEventStreamBytes\`; finished turns kept in memory up to 32 MiB, \`serve.maxRetainedTurnBytes\`) with the testkit's fake model: ${result.turns} turns started at once, each streaming ${formatNumber(result.textBytes)} characters of text in ${formatNumber(result.deltas)} deltas. Every run on a fresh daemon after 2 such turns as a warm-up, ${result.repeats} runs of each kind, the kinds interleaved: the daemon's RSS (\`/proc\`) before the readers opened, the highest sampled every 100 ms while the turns ran, and 5 s after the last ended (the readers still connected); and what its main thread held (V8 heap in use and the buffers it holds) after a full garbage collection before the run and after it (\`heap-monitor.mjs\`, after the RSS was read), which leaves out garbage not yet collected and memory the allocators keep for reuse, both in RSS. A stalled reader is a raw socket that reads the answer's head and the stream's opening comment, then nothing; once the turns ended each reads on: its stream ended with the overflow event, the daemon had closed its connection (the event not taken within 30 s), or neither (not cut off). The reading reader reads \`/v1/events\` as fast as it can in the benchmark's process.`,
    '',
    '| readers | runs | turns completed | seconds | RSS before | RSS growth to peak: median (each run) | RSS growth 5 s after: median (each run) | held after a full collection: growth | stalled readers: overflow event / closed / not cut off | reading reader: text deltas |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...kinds
      .filter(([stalled, reading]) => runsOf(result, stalled, reading).length > 0)
      .map(([stalled, reading]) => stalledReadersRow(result, stalled, reading)),
    '',
    measured
      ? `Target (issue 37), what the stalled readers add: the median RSS growth of their runs over that of the same turns without readers, at the peak ${verdict(added.peak, target, 'at-most', megabytes)}, 5 s after ${verdict(added.after, target, 'at-most', megabytes)}; what the daemon held after a full collection, ${signedMegabytes(added.live)}. The whole RSS growth of their runs (median), the turns' own included, against the same figure: at the peak ${verdict(whole('peak'), target, 'at-most', megabytes)}, 5 s after ${verdict(whole('after'), target, 'at-most', megabytes)}.`
      : 'Target (issue 37): not measured.',
    '',
  ]);
}

const loadText = (load: number | null | undefined) => (typeof load === 'number' ? load.toFixed(2) : '-');

const minutes = (seconds: number) => `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;

/** The test-suite section. */
export function renderTestSuiteSection(result: TestSuiteResult, cores = os.cpus().length): string {
  return marked('test-suite', [
    '## Test suite',
    '',
    `The README's test command (\`pnpm test\`: build, type-check, lint, package checks and every package's tests through turbo: every build first, then the worker's tests, type check and lint in a lane of their own beside everything else, two tasks at once), cold: no task replayed from turbo's cache. Read from the record the script writes of each run (its start and end, the Node version, the cores, and the 1-minute load average before the run, what else the machine was doing, and after it, mostly the run's own load) and the summaries of the turbo runs within it (\`--summarize\`; \`.turbo/runs/\`): the newest two cold runs of the whole command (\`.ci/run\` runs it on Node 20, then on Node 24). This suite does not run the tests itself (\`BENCH_SUITES=test-suite\` rewrites only this section). A task is listed with its time and, in brackets, when it started after the run's start. This machine: ${cores} cores. Target: within ${TEST_SUITE_TARGET_SECONDS / 60} minutes on 2 cores.`,
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

/** Renders the whole of RESULTS.md after a run of every suite. */
export function renderResults(results: BenchResults, now = new Date()): string {
  const cpus = os.cpus();
  const header = [
    '# Benchmark results',
    '',
    'Written by `pnpm bench` (bench/src/index.ts); do not edit by hand. Ratios are the figures to read:',
    'the machine is shared and absolute times drift between runs. A run of some suites',
    '(`BENCH_SUITES=tool-stall,...`) rewrites only their sections, and notes when below the date.',
    '',
    `- Date: ${now.toISOString()}`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}; whole run ${results.seconds.toFixed(0)} s`,
    `- Packages: ${PACKAGES.map((name) => `\`${name}\` ${version(name)}`).join(', ')}`,
    `- HTTP clients inside the peers: the Agents SDK uses its own \`openai\` ${nestedVersion(['@openai/agents'], 'openai')}, pi-ai (under pi-agent-core) \`openai\` ${nestedVersion(['@mariozechner/pi-agent-core', '@mariozechner/pi-ai'], 'openai')}; the AI SDK calls \`fetch\` directly`,
    '',
  ].join('\n');
  return `${[
    header,
    renderOverheadSection(results.overhead),
    renderParallelSection(results.parallel),
    renderSchemaSection(results.schemas),
    renderLadderSection(results.ladder),
    renderToolStallSection(results.toolStall),
    renderStrictCoverageSection(results.strictCoverage),
    renderBusyDaemonSection(results.busyDaemon),
    renderGrowingFleetSection(results.growingFleet),
    renderRequestBurstSection(results.requestBurst),
    renderStalledReadersSection(results.stalledReaders),
    renderTestSuiteSection(results.testSuite),
    renderBrainRecallSection(results.brainRecall),
  ].join('\n')}\n`;
}

/** The header line naming the sections rerun alone since the full run, and when. */
const RERUN_PREFIX = '- Rerun alone since: ';

/**
 * Notes in the header, under its `- Date:` line (the full run's), when each of `names` was rerun
 * alone: the header's date and whole-run time describe the full run only. Earlier entries are
 * kept; a header without a `- Date:` line is left as it is.
 */
function noteRerun(text: string, names: readonly SuiteName[], now: Date): string {
  const sectionsAt = text.search(/^(<!-- bench:|## )/m);
  const head = sectionsAt === -1 ? text : text.slice(0, sectionsAt);
  const lines = head.split('\n');
  const dateAt = lines.findIndex((line) => line.startsWith('- Date: '));
  if (dateAt === -1) return text;
  const at = lines.findIndex((line) => line.startsWith(RERUN_PREFIX));
  const dates = new Map<string, string>();
  for (const match of (lines[at] ?? '').matchAll(/`([a-z-]+)` (\S+?)(?:,|$)/g)) {
    dates.set(match[1] as string, match[2] as string);
  }
  for (const name of names) dates.set(name, now.toISOString());
  const line = `${RERUN_PREFIX}${SUITE_NAMES.filter((name) => dates.has(name))
    .map((name) => `\`${name}\` ${dates.get(name)}`)
    .join(', ')}`;
  if (at === -1) lines.splice(dateAt + 1, 0, line);
  else lines[at] = line;
  return lines.join('\n') + (sectionsAt === -1 ? '' : text.slice(sectionsAt));
}

/**
 * Replaces the given sections of an existing RESULTS.md and leaves the rest as it is: a section is
 * found by its markers, or (in a file written before sections were marked) from its heading to the
 * next heading; a section not found is appended. The header notes when each was rerun alone.
 */
export function updateSections(
  document: string,
  sections: Partial<Record<SuiteName, string>>,
  now = new Date(),
): string {
  let text = noteRerun(
    document.endsWith('\n') ? document : `${document}\n`,
    SUITE_NAMES.filter((name) => sections[name] !== undefined),
    now,
  );
  for (const name of SUITE_NAMES) {
    const section = sections[name];
    if (section === undefined) continue;
    const open = `<!-- bench:${name} -->`;
    const close = `<!-- /bench:${name} -->`;
    const start = text.indexOf(open);
    const end = start === -1 ? -1 : text.indexOf(close, start);
    if (start !== -1 && end !== -1) {
      text = text.slice(0, start) + section + text.slice(end + close.length);
      continue;
    }
    const lines = text.split('\n');
    const first = lines.findIndex((line) => line.startsWith(SECTION_HEADINGS[name]));
    if (first === -1) {
      text = `${text.trimEnd()}\n\n${section}\n`;
      continue;
    }
    let last = first + 1;
    while (
      last < lines.length &&
      !lines[last]?.startsWith('## ') &&
      !lines[last]?.startsWith('<!-- bench:')
    ) {
      last += 1;
    }
    text = [...lines.slice(0, first), section, ...lines.slice(last)].join('\n');
  }
  return text;
}
