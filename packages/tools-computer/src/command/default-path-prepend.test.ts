import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundledToolDirectories, defaultPathPrepend } from './default-path-prepend';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function isWithin(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(`${root}${path.sep}`);
}

describe('the bundled mcporter', () => {
  it('is put first on PATH, and the folders it runs from are named so a sandbox can show them', () => {
    const [binDirectory] = defaultPathPrepend();
    expect(binDirectory).toBeDefined();
    expect(existsSync(path.join(binDirectory ?? '', 'mcporter'))).toBe(true);

    const packageDirectory = path.join(packageRoot, 'node_modules', 'mcporter');
    const directories = bundledToolDirectories();
    // The real install (pnpm's store folder, with the dependencies) and the link beside the binary.
    expect(directories.some((directory) => isWithin(directory, realpathSync(packageDirectory)))).toBe(true);
    expect(directories).toContain(path.dirname(binDirectory ?? ''));
    for (const directory of directories) expect(path.basename(directory)).toBe('node_modules');
  });
});
