import { defineConfig } from 'vitest/config';

// CI machines are shared 2-core boxes: property tests and real-HTTP tests can take seconds there.
// Timeouts only stop hangs; speed is measured in `pnpm bench`.
export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The time limits' tests force garbage collections (`collectGarbageOften` from test-support).
    execArgv: ['--expose-gc'],
  },
});
