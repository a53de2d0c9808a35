// Runs every benchmark suite in turn, then rewrites RESULTS.md and results/overhead.svg.
import { mkdirSync, writeFileSync } from 'node:fs';
import { overheadSvg } from './report/overhead-svg';
import { renderResults } from './report/write-results';
import { aiSdkRuntime } from './runtimes/ai-sdk-runtime';
import { openaiAgentsRuntime } from './runtimes/openai-agents-runtime';
import { openaiSdkLoopRuntime } from './runtimes/openai-sdk-loop-runtime';
import { piAgentCoreRuntime } from './runtimes/pi-agent-core-runtime';
import { switchyardRuntime } from './runtimes/switchyard-runtime';
import { argumentLadder } from './suites/argument-ladder';
import { loopOverhead } from './suites/loop-overhead';
import { parallelBatch } from './suites/parallel-batch';
import { schemaBytes } from './suites/schema-bytes';

const started = performance.now();
const peers = [switchyardRuntime, aiSdkRuntime, openaiAgentsRuntime, piAgentCoreRuntime];

const overhead = await loopOverhead(peers, openaiSdkLoopRuntime);
const parallel = await parallelBatch([openaiSdkLoopRuntime, ...peers]);
const schemas = await schemaBytes();
const ladder = argumentLadder();
const seconds = (performance.now() - started) / 1000;

const resultsDir = new URL('../results/', import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  new URL('overhead.svg', resultsDir),
  overheadSvg(
    overhead.rows.map((row) => ({ name: row.name, cpu: row.cpuToBare, wall: row.wallToBare })),
    `Agent turn overhead vs a bare openai SDK loop (${overhead.iterations} iterations, ${overhead.rounds} rounds)`,
  ),
);
writeFileSync(
  new URL('../RESULTS.md', import.meta.url),
  renderResults({ overhead, parallel, schemas, ladder, seconds }),
);
process.stdout.write(`\nWrote bench/RESULTS.md and bench/results/overhead.svg (${seconds.toFixed(0)} s)\n`);
