import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const cats: Array<[string, (f: any) => boolean]> = [
  ['pglite (js+wasm)', (f) => f.url.includes('pglite') || f.url.startsWith('wasm://')],
  ['pg driver', (f) => /node_modules\/.*\/pg(-protocol|-pool)?\//.test(f.url)],
  ['pg-boss', (f) => f.url.includes('pg-boss')],
  ['control-plane', (f) => f.url.includes('control-plane/dist')],
  ['hono/http api', (f) => f.url.includes('hono')],
  ['openai sdk', (f) => f.url.includes('/openai/')],
  ['undici/fetch', (f) => f.url.includes('undici')],
  ['core', (f) => f.url.includes('packages/core/dist')],
  ['tools-computer', (f) => f.url.includes('tools-computer/dist')],
  ['tools-schedule', (f) => f.url.includes('tools-schedule')],
  ['tools-web', (f) => f.url.includes('tools-web')],
  ['zod', (f) => f.url.includes('/zod/')],
  ['worker app', (f) => f.url.includes('apps/worker/dist')],
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
];
const names = process.argv.slice(3);
const totals = new Map<string, number>();
let all = 0;
p.samples.forEach((s: number, i: number) => {
  const us = p.timeDeltas[i + 1] ?? 0; all += us;
  const frames: any[] = [];
  for (let id: number | undefined = s; id !== undefined; id = parent.get(id)) frames.push(byId.get(id).callFrame);
  for (const [name, test] of cats) if (frames.some(test)) totals.set(name, (totals.get(name) ?? 0) + us);
  for (const fn of names) if (frames.some((f) => f.functionName === fn)) totals.set('fn:' + fn, (totals.get('fn:' + fn) ?? 0) + us);
});
console.log('all', (all / 1000).toFixed(0));
for (const [k, v] of [...totals].sort((a, b) => b[1] - a[1])) console.log(k.padEnd(30), (v / 1000).toFixed(0));
