// The rule describePublicApi serves, kept by a test: every entry of every library package (each
// `exports` subpath of each packages/* package, `./package.json` aside) has its names pinned by a
// `describePublicApi('<package><subpath>', ...)` suite in one of that package's tests.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packagesDirectory = fileURLToPath(new URL('../../../packages/', import.meta.url));

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('every entry of every package is pinned', () => {
  const packages = readdirSync(packagesDirectory, { withFileTypes: true }).filter((entry) =>
    entry.isDirectory(),
  );

  it('finds the library packages', () => {
    expect(packages.map((entry) => entry.name)).toContain('core');
  });

  for (const { name: folder } of packages) {
    const directory = path.join(packagesDirectory, folder);
    const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(manifest.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => manifest.name + subpath.slice(1));

    it(`${manifest.name}: ${entries.join(', ')}`, () => {
      const tests = testFiles(path.join(directory, 'src')).map((file) => readFileSync(file, 'utf8'));
      const unpinned = entries.filter(
        (entry) => !tests.some((text) => text.includes(`describePublicApi('${entry}', {`)),
      );
      expect(unpinned).toEqual([]);
    });
  }
});
