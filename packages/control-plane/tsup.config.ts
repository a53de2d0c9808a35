import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base';

export default defineConfig({
  ...libraryBuild,
  // `testing`: raw SQL for tests and diagnostics, outside the public API (see README).
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    // The thread an embedded PGlite database runs in (see open-pglite-database.ts).
    'pglite-thread': 'src/database/pglite-thread.ts',
  },
});
