import { defineConfig } from 'vitest/config';

// The console's tests drive a real chromium against real `switchyard serve` children (the worker's
// build, which turbo builds before this package's `test` task): on a busy 2-core machine a daemon
// takes seconds to start, so the default 5 s timeout would fail tests that are fine. Speed lives in
// `pnpm bench`.
export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time (9 files: imports took 17 s, 3 s without).
    isolate: false,
    include: ['test/**/*.test.ts'],
    // Builds the PGlite template every daemon's database is copied from, once, before any file runs.
    globalSetup: ['@switchyard/test-databases/pglite-global-setup'],
    // Two files at once: a file mostly waits on its daemon and its browser.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
