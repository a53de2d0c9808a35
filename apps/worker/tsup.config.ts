import { defineConfig } from 'tsup';

export default defineConfig({
  // The model's thread (src/model/threaded-model.ts) runs a script of its own.
  entry: { cli: 'src/cli.ts', 'model-thread': 'src/model/model-thread.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
