import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The same specifier the packages use: checks that vitest resolves it through `exports`.
    globalSetup: ['@switchyard/test-databases/global-setup'],
    // Each test file opens embedded PGlite databases in a process that lives seconds: V8's optimising
    // compiler for WebAssembly costs more CPU there than it saves. The CLI does the same for its
    // one-shot commands; the daemon keeps it.
    execArgv: ['--liftoff-only'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
