import type { Options } from 'tsup';

/**
 * The build every library package shares: one ESM entry `src/index.ts` with its declarations and
 * source maps, for Node 20. A package with more entries spreads this and overrides `entry` (and
 * `dts`). Listed in turbo.json's globalDependencies, so changing it rebuilds every package.
 */
export const libraryBuild = {
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
} satisfies Options;
