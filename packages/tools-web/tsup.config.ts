import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig({
  ...libraryBuild,
  // render-worker is the entry of the render threads: built next to index.js, which starts it by
  // its URL (src/fetch/render-pool.ts).
  entry: { index: 'src/index.ts', 'render-worker': 'src/fetch/render-worker.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
