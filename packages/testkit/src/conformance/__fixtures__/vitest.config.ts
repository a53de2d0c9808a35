import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['**/broken-category.test.ts'], root: import.meta.dirname } });
