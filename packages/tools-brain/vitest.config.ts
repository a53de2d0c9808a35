import { defineConfig } from 'vitest/config';

// CI machines are shared 2-core boxes: property tests can take seconds there. Timeouts only stop hangs.
export default defineConfig({ test: { testTimeout: 30_000, hookTimeout: 60_000 } });
