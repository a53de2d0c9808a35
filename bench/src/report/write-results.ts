import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LadderScore } from '../ladder/score-ladder';
import type { ArgumentLadderResult } from '../suites/argument-ladder';
import type { OverheadResult } from '../suites/loop-overhead';
import type { ParallelBatchRow } from '../suites/parallel-batch';
import type { SchemaBytesResult } from '../suites/schema-bytes';
import type { StrictCoverageResult } from '../suites/strict-coverage';
import { STALL_TARGET_MS, type ToolStallResult } from '../suites/tool-stall';

/** Everything one `pnpm bench` run measured. */
export interface BenchResults {
  overhead: OverheadResult;
  parallel: ParallelBatchRow[];
  schemas: SchemaBytesResult;
  ladder: ArgumentLadderResult;
  toolStall: ToolStallResult;
  /** The strict-coverage suite. */
  strictCoverage: StrictCoverageResult;
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
};

const marked = (name: SuiteName, lines: readonly string[]) =>
  [`<!-- bench:${name} -->`, ...lines, `<!-- /bench:${name} -->`].join('\n');

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

/** Renders the whole of RESULTS.md after a run of every suite. */
export function renderResults(results: BenchResults, now = new Date()): string {
  const cpus = os.cpus();
  const header = [
    '# Benchmark results',
    '',
    'Written by `pnpm bench` (bench/src/index.ts); do not edit by hand. Ratios are the figures to read:',
    'the machine is shared and absolute times drift between runs. A run of some suites',
    '(`BENCH_SUITES=tool-stall,...`) rewrites only their sections.',
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
  ].join('\n')}\n`;
}

/**
 * Replaces the given sections of an existing RESULTS.md and leaves the rest as it is: a section is
 * found by its markers, or (in a file written before sections were marked) from its heading to the
 * next heading; a section not found is appended.
 */
export function updateSections(document: string, sections: Partial<Record<SuiteName, string>>): string {
  let text = document.endsWith('\n') ? document : `${document}\n`;
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
