import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig({
  ...libraryBuild,
  // Two entries: `index` imports no test runner; `conformance` is the vitest-based suite.
  entry: { index: 'src/index.ts', conformance: 'src/conformance/index.ts' },
});
