import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing`: raw SQL for tests and diagnostics, outside the public API (see README).
  entry: { index: 'src/index.ts', testing: 'src/testing.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
