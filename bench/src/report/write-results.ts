import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArgumentLadderResult } from '../suites/argument-ladder';
import type { BrainRecallResult } from '../suites/brain-recall';
import type { BusyDaemonResult } from '../suites/busy-daemon';
import type { ChaosResult } from '../suites/chaos';
import type { GrowingFleetResult } from '../suites/growing-fleet';
import type { OverheadResult } from '../suites/loop-overhead';
import type { ParallelBatchRow } from '../suites/parallel-batch';
import type { RequestBurstResult } from '../suites/request-burst';
import type { SchemaBytesResult } from '../suites/schema-bytes';
import type { StalledReadersResult } from '../suites/stalled-readers';
import type { StreamedTextResult } from '../suites/streamed-text';
import type { StrictCoverageResult } from '../suites/strict-coverage';
import type { TestSuiteResult } from '../suites/test-suite';
import type { ToolStallResult } from '../suites/tool-stall';
import type { TurnsInFlightResult } from '../suites/turns-in-flight';
import { renderLadderSection } from './argument-ladder-section';
import { renderBrainRecallSection } from './brain-recall-section';
import { renderBusyDaemonSection } from './busy-daemon-section';
import { renderChaosSection } from './chaos-section';
import { renderGrowingFleetSection } from './growing-fleet-section';
import { renderOverheadSection } from './overhead-section';
import { renderParallelSection } from './parallel-batch-section';
import { renderRequestBurstSection } from './request-burst-section';
import { renderSchemaSection } from './schema-bytes-section';
import { renderStalledReadersSection } from './stalled-readers-section';
import { renderStreamedTextSection } from './streamed-text-section';
import { renderStrictCoverageSection } from './strict-coverage-section';
import { renderTestSuiteSection } from './test-suite-section';
import { renderToolStallSection } from './tool-stall-section';
import { renderTurnsInFlightSection } from './turns-in-flight-section';

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
  /** The turns-in-flight suite. */
  turnsInFlight: TurnsInFlightResult;
  /** The test-suite section (read from turbo's run summaries). */
  testSuite: TestSuiteResult;
  /** The stalled-readers suite. */
  stalledReaders: StalledReadersResult;
  /** The streamed-text suite. */
  streamedText: StreamedTextResult;
  /** The Brain recall suite. */
  brainRecall: BrainRecallResult;
  /** The chaos suite. */
  chaos: ChaosResult;
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
    renderTurnsInFlightSection(results.turnsInFlight),
    renderStalledReadersSection(results.stalledReaders),
    renderStreamedTextSection(results.streamedText),
    renderTestSuiteSection(results.testSuite),
    renderBrainRecallSection(results.brainRecall),
    renderChaosSection(results.chaos),
  ].join('\n')}\n`;
}
