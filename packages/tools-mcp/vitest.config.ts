import { defineConfig } from 'vitest/config';

// These tests start real MCP server processes; on a loaded 2-core CI machine a start-up can take
// seconds, so the default 5 s would fail them for the wrong reason. A hang still fails.
export default defineConfig({
  test: { testTimeout: 30_000, hookTimeout: 60_000 },
});
