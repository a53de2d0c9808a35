// Sums a V8 CPU profile (`node --cpu-prof`) by function: self time and the time of everything it
// called, so the costs of a daemon under load can be read without DevTools.
//   pnpm exec tsx src/daemon/top-functions.ts FILE.cpuprofile [COUNT]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  /** Node id of each sample. */
  samples: number[];
  /** Microseconds between consecutive samples. */
  timeDeltas: number[];
}

/** One function's share of a profile. */
export interface FunctionCost {
  /** `name (file:line)`, the file shortened to its package path. */
  name: string;
  /** Time spent in the function itself, ms. */
  selfMs: number;
  /** Time spent in it and everything it called (counted once per sample), ms. */
  totalMs: number;
}

/** Shortens a script URL to what names it: the part after the last `node_modules/` or from `src/`/`dist/`. */
function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1)
    return url.slice(modules + 'node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const match = /(?:apps|packages)\/[^/]+\/(?:src|dist)\/.*$/.exec(url);
  return match?.[0] ?? url.replace(/^file:\/\//, '');
}

/**
 * Self and total time per function (by name and location), largest self time first. A sample's
 * time is its following time delta; total time counts a function once per sample however deep
 * it recurses.
 */
export function topFunctions(profile: CpuProfile): FunctionCost[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const key = (id: number) => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) return '(unknown)';
    return `${frame.functionName || '(anonymous)'} (${shortUrl(frame.url) || 'native'}:${frame.lineNumber + 1})`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((sample, index) => {
    const micros = profile.timeDeltas[index + 1] ?? 0;
    const name = key(sample);
    self.set(name, (self.get(name) ?? 0) + micros);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const frameName = key(id);
      if (seen.has(frameName)) continue;
      seen.add(frameName);
      total.set(frameName, (total.get(frameName) ?? 0) + micros);
    }
  });
  return [...total.keys()]
    .map((name) => ({ name, selfMs: (self.get(name) ?? 0) / 1000, totalMs: (total.get(name) ?? 0) / 1000 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, count] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: tsx src/daemon/top-functions.ts FILE.cpuprofile [COUNT]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const costs = topFunctions(profile);
  const sum = costs.reduce((all, cost) => all + cost.selfMs, 0);
  process.stdout.write(`${sum.toFixed(0)} ms sampled\n  self ms  total ms  function\n`);
  for (const cost of costs.slice(0, Number(count ?? 40))) {
    process.stdout.write(
      `${cost.selfMs.toFixed(0).padStart(9)} ${cost.totalMs.toFixed(0).padStart(9)}  ${cost.name}\n`,
    );
  }
}
