import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time (36 files: imports took 26 s, 9 s without).
    isolate: false,
    globalSetup: ['@switchyard/test-databases/global-setup'],
    // Most of these files wait (pg-boss polling, timers, a second process) rather than compute:
    // vitest's default on 2 cores is one file at a time (cores - 1). Four at once took the suite
    // from 203 s to 129 s on a loaded 2-core machine; each file has its own databases.
    maxWorkers: 4,
    // Each test file opens embedded PGlite databases in a process that lives seconds: V8's optimising
    // compiler for WebAssembly costs more CPU there than it saves (this suite: 89 s of CPU instead of 70 s). The CLI
    // does the same for its one-shot commands; the daemon keeps it.
    execArgv: ['--liftoff-only'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
