import { defineConfig } from 'vitest/config';

// Worker tests start PGlite, PostgreSQL, child processes and local servers: on a busy 2-core machine
// these take seconds, so the default 5 s timeout would fail tests that are fine. Speed lives in
// `pnpm bench`.
export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time (85 files: imports and set-up took 79 s, 9 s without).
    isolate: false,
    // A throw-away PostgreSQL cluster, or SWITCHYARD_TEST_DATABASE_URL (tooling/test-databases).
    globalSetup: ['@switchyard/test-databases/global-setup'],
    setupFiles: ['./src/__fixtures__/setup-each-test.ts'],
    // Two files at once: a file mostly waits on the `switchyard serve` and CLI processes it starts,
    // and vitest's default on 2 cores is one file at a time (cores - 1).
    // Each test file opens embedded PGlite databases in a process that lives seconds: V8's optimising
    // compiler for WebAssembly costs more CPU there than it saves. The CLI does the same for its
    // one-shot commands; the daemon keeps it.
    execArgv: ['--liftoff-only'],
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
