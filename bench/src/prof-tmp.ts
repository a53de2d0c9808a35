import { startFakeResponsesServer } from '@switchyard/testkit';
import { openaiSdkLoopRuntime } from './runtimes/openai-sdk-loop-runtime';
import { switchyardRuntime } from './runtimes/switchyard-runtime';
import { scriptedTurn } from './scenarios/scripted-turn';
import { MODULE_TOOL_SPECS, type ToolSpec } from './scenarios/varied-tools';

const which = process.argv[2] === 'bare' ? openaiSdkLoopRuntime : switchyardRuntime;
const byName = new Map(MODULE_TOOL_SPECS.map((spec) => [spec.name, spec]));
const script = scriptedTurn(MODULE_TOOL_SPECS, (name, path) => byName.get(name)?.sample(path) ?? {});
const server = await startFakeResponsesServer({ record: false, script });
const run = which.composeTurn({
  baseURL: server.baseURL,
  instructions: 'x',
  input: 'Go.',
  specs: () => MODULE_TOOL_SPECS,
  execute: async (spec: ToolSpec, params: Record<string, unknown>) =>
    `${spec.name} done for ${String(params[spec.subject])}`,
});
for (let i = 0; i < 10; i++) await run();
const t = process.cpuUsage();
for (let i = 0; i < 60; i++) await run();
const u = process.cpuUsage(t);
console.log(which.name, 'CPU ms/turn', ((u.user + u.system) / 1000 / 60).toFixed(1));
await server.close();
