import { defineConfig } from 'vitest/config';

// CI machines are shared 2-core boxes: the tests spawn a process and stream over real HTTP.
// Timeouts only stop hangs.
export default defineConfig({
  test: { testTimeout: 30_000, exclude: ['**/node_modules/**', '**/__fixtures__/**'] },
});
