import { defineConfig } from 'vitest/config';

// These tests start real MCP server processes; on a loaded 2-core CI machine a start-up can take
// seconds, so the default 5 s would fail them for the wrong reason. A hang still fails.
export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
