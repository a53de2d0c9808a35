import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const workerDirectory = fileURLToPath(new URL('..', import.meta.url));
const refuseTestRunners = new URL('./__fixtures__/refuse-test-runners.mjs', import.meta.url).href;
const TEST_RUNNER = /^(vitest|@vitest\/.+|jest|@jest\/.+|mocha)$/;

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Node's lookup: `node_modules/<name>` in `from` and each folder above it. */
function packageDirectory(name: string, from: string): string | undefined {
  for (let directory = from; ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(directory) === directory) return undefined;
  }
}

/**
 * Every package a production install of the worker needs, with the chain that brings each in: its
 * `dependencies` and required `peerDependencies`, transitively, as installed here.
 */
function productionClosure(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const pending: Array<{ directory: string; chain: string[] }> = [{ directory: workerDirectory, chain: [] }];
  const visited = new Set<string>();
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === undefined || visited.has(next.directory)) continue;
    visited.add(next.directory);
    const manifest = JSON.parse(readFileSync(path.join(next.directory, 'package.json'), 'utf8')) as Manifest;
    const chain = [...next.chain, manifest.name];
    const required = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter(
        (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
      ),
    ];
    for (const name of required) {
      if (!found.has(name)) found.set(name, chain);
      const directory = packageDirectory(name, next.directory);
      if (directory !== undefined) pending.push({ directory, chain });
    }
  }
  return found;
}

describe('the worker at run time needs no test runner', () => {
  it('has no test runner among its production dependencies, direct or transitive', () => {
    const closure = productionClosure();
    // The walk reached the testkit (the demo's fake server) and went through it.
    expect(closure.get('@switchyard/testkit')).toEqual(['@switchyard/worker']);
    expect(closure.has('@switchyard/core')).toBe(true);
    expect(closure.size).toBeGreaterThan(50);
    const runners = [...closure].filter(([name]) => TEST_RUNNER.test(name));
    expect(runners.map(([name, chain]) => `${[...chain, name].join(' -> ')}`)).toEqual([]);
  });

  // demo.test.ts runs the built CLI's demo under this hook; this shows the hook refuses what it should.
  it('refuses to resolve vitest under the hook the demo test runs with, and lets the runtime entry load', async () => {
    const load = (specifier: string) =>
      run(
        process.execPath,
        [
          '--import',
          refuseTestRunners,
          '--input-type=module',
          '-e',
          `await import(${JSON.stringify(specifier)})`,
        ],
        { cwd: workerDirectory, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      );
    await expect(load('@switchyard/testkit')).resolves.toMatchObject({ stderr: '' });
    const conformance = await load('@switchyard/testkit/conformance').then(
      () => 'loaded',
      (error: { stderr: string }) => error.stderr,
    );
    expect(conformance).toMatch(/test runner vitest imported from .*testkit.*refused/);
  });
});
