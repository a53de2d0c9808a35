import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig({
  ...libraryBuild,
  // `internal`: helpers Switchyard's own packages share with core, outside the public API (see
  // README). Both entries share one copy of every module (esbuild's ESM code splitting), so the
  // caches core keeps per tool and per schema are the same whichever entry reached them.
  entry: { index: 'src/index.ts', internal: 'src/internal.ts' },
});
