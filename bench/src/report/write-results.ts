import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LadderScore } from '../ladder/score-ladder';
import type { ArgumentLadderResult } from '../suites/argument-ladder';
import type { OverheadResult } from '../suites/loop-overhead';
import type { ParallelBatchRow } from '../suites/parallel-batch';
import type { SchemaBytesResult } from '../suites/schema-bytes';

/** Everything one `pnpm bench` run measured. */
export interface BenchResults {
  overhead: OverheadResult;
  parallel: ParallelBatchRow[];
  schemas: SchemaBytesResult;
  ladder: ArgumentLadderResult;
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

/** Renders RESULTS.md. */
export function renderResults(results: BenchResults, now = new Date()): string {
  const { overhead, parallel, schemas, ladder } = results;
  const cpus = os.cpus();
  const lines: string[] = [
    '# Benchmark results',
    '',
    'Written by `pnpm bench` (bench/src/index.ts); do not edit by hand. Ratios are the figures to read:',
    'the machine is shared and absolute times drift between runs.',
    '',
    `- Date: ${now.toISOString()}`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}; whole run ${results.seconds.toFixed(0)} s`,
    `- Packages: ${PACKAGES.map((name) => `\`${name}\` ${version(name)}`).join(', ')}`,
    `- HTTP clients inside the peers: the Agents SDK uses its own \`openai\` ${nestedVersion(['@openai/agents'], 'openai')}, pi-ai (under pi-agent-core) \`openai\` ${nestedVersion(['@mariozechner/pi-agent-core', '@mariozechner/pi-ai'], 'openai')}; the AI SDK calls \`fetch\` directly`,
    '',
    `## Agent turn overhead`,
    '',
    `A scripted turn of ${overhead.iterations} model requests against the testkit's fake Responses server: the first ${overhead.iterations - 1} responses each ask for a parallel batch of ${overhead.batch} calls (${overhead.tools} tools declared), the last answers with text. Each runtime first ran one turn against a recording server and had to show ${overhead.iterations} requests, each carrying every earlier call's output with the text its tool returned (${(overhead.iterations - 1) * overhead.batch} executions); then all runtimes ran ${overhead.rounds} interleaved rounds (rotating order) against one server. Ratios are medians of per-round ratios; per-iteration overhead is (median - bare median) / ${overhead.iterations}. CPU time is the process's (runtime plus fake server), steadier than wall time on a busy machine.`,
    '',
    '| runtime | wall / turn | CPU / turn | wall vs bare | CPU vs bare | wall vs Switchyard | CPU vs Switchyard | wall overhead / iteration | CPU overhead / iteration |',
    '|---|---|---|---|---|---|---|---|---|',
    ...overhead.rows.map(
      (row) =>
        `| ${row.name} | ${msText(row.wall)} | ${msText(row.cpu)} | ${x(row.wallToBare)} | ${x(row.cpuToBare)} | ${x(row.wallToSwitchyard)} | ${x(row.cpuToSwitchyard)} | ${msText(row.wallPerIteration)} | ${msText(row.cpuPerIteration)} |`,
    ),
    '',
    ...(overhead.failed.length === 0
      ? ['Every runtime passed the recorded-turn check.']
      : overhead.failed.map(
          (failure) =>
            `- **${failure.name} failed the turn check** (not timed): ${failure.problems.slice(0, 3).join('; ')}`,
        )),
    '',
    '![Overhead ratios](results/overhead.svg)',
    '',
    '## Parallel batch',
    '',
    'One response with 8 calls to 8 tools that each wait 100 ms, then a text answer: the whole turn (two model requests and the batch), median of 5 turns, and the most calls executing at once (counted inside the tools). Concurrent execution takes about 100 ms plus the requests; sequential takes 800 ms.',
    '',
    '| runtime | turn | most calls at once |',
    '|---|---|---|',
    ...parallel.map((row) => `| ${row.name} | ${msText(row.turn)} | ${row.maxInFlight} of 8 |`),
    '',
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
  lines.push(
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
  );
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
  return `${lines.join('\n')}\n`;
}
