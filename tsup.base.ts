import { defineConfig } from 'tsup';

/**
 * The build the library packages share: `src/index.ts` as ESM for Node 20, with type declarations
 * and source maps, into a cleaned `dist/`. A package's `tsup.config.ts` re-exports it.
 */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
