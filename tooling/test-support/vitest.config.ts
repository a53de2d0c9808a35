import { defineConfig } from 'vitest/config';

// collect-garbage-often.test.ts calls the collector that only --expose-gc makes available.
export default defineConfig({
  test: {
    execArgv: ['--expose-gc'],
  },
});
