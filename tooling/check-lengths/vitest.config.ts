import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Each test makes a git repository and commits with child processes: seconds on a loaded machine.
  test: { testTimeout: 60_000 },
});
