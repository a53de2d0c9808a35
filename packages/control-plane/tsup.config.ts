import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig({
  ...libraryBuild,
  // `testing`: raw SQL for tests and diagnostics, outside the public API (see README).
  entry: { index: 'src/index.ts', testing: 'src/testing.ts' },
});
