import { defineConfig } from 'vitest/config';

// These tests read megabytes, walk thousands of files and start sandboxed processes: on a loaded
// 2-core machine some take 20 s (128 parallel reads of an 8 MiB file took 8 to 18 s and, at a load
// of 17, passed 30 s). The timeouts only stop hangs; what a test asserts (memory, event-loop stalls,
// outputs) is its own, and speed is measured in `pnpm bench`.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
