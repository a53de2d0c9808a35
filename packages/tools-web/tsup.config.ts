import { defineConfig } from 'tsup';

export default defineConfig({
  // render-worker is the entry of the render threads: built next to index.js, which starts it by
  // its URL (src/fetch/render-pool.ts).
  entry: { index: 'src/index.ts', 'render-worker': 'src/fetch/render-worker.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
