import { defineConfig } from 'tsup';

export default defineConfig({
  // Two entries: `index` imports no test runner; `conformance` is the vitest-based suite.
  entry: { index: 'src/index.ts', conformance: 'src/conformance/index.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
