// Runs every benchmark suite in turn. Peer runtimes join by adding a BenchRuntime to `runtimes`.
import { openaiSdkLoopRuntime } from './runtimes/openai-sdk-loop-runtime';
import { switchyardRuntime } from './runtimes/switchyard-runtime';
import { deferredSchemas } from './suites/deferred-schemas';
import { loopOverhead } from './suites/loop-overhead';
import { parallelBatch } from './suites/parallel-batch';

const runtimes = [switchyardRuntime];

await loopOverhead(runtimes, openaiSdkLoopRuntime);
await parallelBatch();
await deferredSchemas();
