import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One module graph per test process, not one per file: these files share no module state,
    // and importing zod, openai and the packages again for each file was most of the suite's CPU
    // time.
    isolate: false,
  },
});
