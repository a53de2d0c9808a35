import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeResponsesServer } from '@switchyard/testkit';
import { listFilesScript } from './daemon/serve-daemon';

const fake = await startFakeResponsesServer({ record: false, script: listFilesScript(5) });
const home = await mkdtemp(path.join(os.tmpdir(), 'floor-home-'));
await writeFile(path.join(home, 'a.md'), 'x');
const tools = [
  {
    type: 'function' as const,
    name: 'list_files',
    description: 'x'.repeat(Number(process.argv[3] ?? 1)),
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string' } },
      required: ['pattern'],
      additionalProperties: false,
    },
    strict: true,
  },
];
const file = path.join(home, 'job.json');
await writeFile(
  file,
  JSON.stringify({ baseURL: fake.baseURL, turns: Number(process.argv[2] ?? 500), home, tools }),
);
const child = spawn(process.execPath, ['--import', 'tsx', 'src/daemon/floor-process.ts'], {
  env: { PATH: process.env.PATH ?? '', FLOOR_JOB: file },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (c) => {
  out += c;
});
await new Promise((r) => child.once('exit', r));
const r = JSON.parse(out);
console.log(
  r.elapsedMs,
  r.turnMs.length,
  r.failures.filter((f: string) => f !== '').slice(0, 3),
  r.failures.length,
);
await fake.close();
