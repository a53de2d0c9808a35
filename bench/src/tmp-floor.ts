import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeResponsesServer } from '@switchyard/testkit';
import OpenAI from 'openai';
import { listFilesScript } from './daemon/serve-daemon';
import { runBareLoop } from './runtimes/openai-sdk-loop-runtime';

const fake = await startFakeResponsesServer({ record: false, script: listFilesScript(5) });
const home = await mkdtemp(path.join(os.tmpdir(), 'floor-home-'));
await writeFile(path.join(home, 'a.md'), 'x');
const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 });
const tools = [
  {
    type: 'function' as const,
    name: 'list_files',
    description: 'x',
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string' } },
      required: ['pattern'],
      additionalProperties: false,
    },
    strict: true,
  },
];
const N = Number(process.argv[2] ?? 500);
const start = performance.now();
let failed = 0;
const causes = new Map<string, number>();
await Promise.all(
  Array.from({ length: N }, async (_, i) => {
    try {
      await runBareLoop({ client, instructions: 'x', input: `t${i}`, tools, runCall: async () => 'a.md' });
    } catch (error) {
      failed++;
      let c: any = error;
      const chain: string[] = [];
      while (c) {
        chain.push(`${c.name}:${c.code ?? ''}:${String(c.message).slice(0, 60)}`);
        c = c.cause;
      }
      const k = chain.join(' <- ');
      causes.set(k, (causes.get(k) ?? 0) + 1);
    }
  }),
);
console.log(N, 'turns', ((performance.now() - start) / 1000).toFixed(1), 's, failed', failed, [...causes]);
await fake.close();
