// Runs every benchmark suite in turn, then rewrites RESULTS.md and results/overhead.svg.
import { aiSdkRuntime } from './runtimes/ai-sdk-runtime';
import { openaiAgentsRuntime } from './runtimes/openai-agents-runtime';
import { openaiSdkLoopRuntime } from './runtimes/openai-sdk-loop-runtime';
import { piAgentCoreRuntime } from './runtimes/pi-agent-core-runtime';
import { switchyardRuntime } from './runtimes/switchyard-runtime';
import { loopOverhead } from './suites/loop-overhead';

const runtimes = [switchyardRuntime, aiSdkRuntime, openaiAgentsRuntime, piAgentCoreRuntime];

const overhead = await loopOverhead(runtimes, openaiSdkLoopRuntime);
console.log(JSON.stringify(overhead.failed, null, 1).slice(0, 3000));
