import { verdict } from '../daemon/daemon-stats';
import { LOOP_OVERHEAD_TARGETS, type OverheadResult, type OverheadRow } from '../suites/loop-overhead';
import { asPrinted, marked, msText, ratioText } from './report-format';

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
    `- module-level schemas, the whole turn's CPU: ${verdict(ratio('module', 'cpuToBare'), targets.cpuModule, 'at-most', ratioText)}`,
    `- fresh schemas, the whole turn's CPU: ${verdict(ratio('fresh', 'cpuToBare'), targets.cpuFresh, 'at-most', ratioText)}`,
    `- fresh schemas, the time to the first request: ${verdict(ratio('fresh', 'firstRequestToBare'), targets.firstRequestFresh, 'at-most', ratioText)}${firstRequestParts(overhead)}`,
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
        `| ${row.name} | ${row.variant} | ${msText(row.wall)} | ${msText(row.cpu)} | ${msText(row.firstRequest)} | ${ratioText(row.wallToBare)} | ${ratioText(row.cpuToBare)} | ${ratioText(row.firstRequestToBare)} | ${ratioText(row.wallToSwitchyard)} | ${ratioText(row.cpuToSwitchyard)} | ${msText(row.wallPerIteration)} | ${msText(row.cpuPerIteration)} |`,
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
